// Package docs holds the project's design and reference pages (Markdown) and
// the tests that keep them true: every relative link in README.md and
// docs/*.md resolves, and every package's imports follow the layer table of
// design.md.
package docs

import (
	"bufio"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/coordsim/coordsim"

// markdownFiles are the pages whose links must resolve, relative to the
// repository root.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		files = append(files, filepath.Join("docs", p))
	}
	return files
}

var (
	linkRE    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	headingRE = regexp.MustCompile(`^#{1,6}\s+(.*)$`)
	fenceRE   = regexp.MustCompile("^\\s*```")
)

// slug is GitHub's heading anchor: lower case, punctuation other than '-'
// and '_' dropped, spaces to '-'.
func slug(heading string) string {
	heading = strings.ReplaceAll(heading, "`", "")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_':
			b.WriteRune(r)
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r > 127 && !strings.ContainsRune("§→–—×±≥≤’“”", r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the heading anchors of a Markdown file.
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]bool{}
	inFence := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if fenceRE.MatchString(line) {
			inFence = !inFence
			continue
		}
		if m := headingRE.FindStringSubmatch(line); m != nil && !inFence {
			s := slug(strings.TrimSpace(m[1]))
			for n := 0; ; n++ { // GitHub numbers repeated headings
				key := s
				if n > 0 {
					key = s + "-" + strconv.Itoa(n)
				}
				if !out[key] {
					out[key] = true
					break
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRelativeLinksResolve proves that every relative link in README.md and
// docs/*.md names a file or directory of the repository and, with a
// fragment, a heading of that Markdown file.
func TestRelativeLinksResolve(t *testing.T) {
	root := ".."
	for _, page := range markdownFiles(t) {
		data, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		inFence := false
		for n, line := range strings.Split(string(data), "\n") {
			if fenceRE.MatchString(line) {
				inFence = !inFence
				continue
			}
			if inFence {
				continue
			}
			for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, frag, _ := strings.Cut(target, "#")
				path := filepath.Join(root, filepath.Dir(page), file)
				if file == "" {
					path = filepath.Join(root, page)
				}
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s:%d: link %q: %v", page, n+1, target, err)
					continue
				}
				if frag != "" && strings.HasSuffix(path, ".md") && !anchors(t, path)[frag] {
					t.Errorf("%s:%d: link %q: no heading with anchor #%s in %s", page, n+1, target, frag, path)
				}
			}
		}
	}
}

// TestSlug pins the anchor rule the link check relies on.
func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"1.8 The accepted data-loss race (protocol v1)": "18-the-accepted-data-loss-race-protocol-v1",
		"Share groups and the Connect share sink":       "share-groups-and-the-connect-share-sink",
		"Layout and the import map":                     "layout-and-the-import-map",
		"`connect:`":                                    "connect",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// layers reads the layer table of design.md: package path → layer.
func layers(t *testing.T) map[string]int {
	t.Helper()
	data, err := os.ReadFile("design.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`^\|\s*(\d+)\s*\|([^|]*)\|`)
	pkg := regexp.MustCompile("`([a-z0-9/]+)`")
	out := map[string]int{}
	for _, line := range strings.Split(string(data), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		layer, _ := strconv.Atoi(m[1])
		for _, p := range pkg.FindAllStringSubmatch(m[2], -1) {
			out[p[1]] = layer
		}
	}
	if len(out) < 10 {
		t.Fatalf("design.md's layer table lists %d packages; the parser lost it", len(out))
	}
	return out
}

// TestImportsPointDown proves the import map of design.md: every package
// is listed in its layer table and imports only packages of a strictly
// lower layer. A package missing from the table fails the test, so a new
// package cannot escape the check.
func TestImportsPointDown(t *testing.T) {
	layer := layers(t)
	imports := map[string][]string{}
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != ".." && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(strings.TrimPrefix(path, "../")))
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if rest, ok := strings.CutPrefix(p, module+"/"); ok {
				imports[pkg] = append(imports[pkg], rest)
			}
		}
		if _, ok := imports[pkg]; !ok {
			imports[pkg] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	pkgs := make([]string, 0, len(imports))
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		from, ok := layer[p]
		if !ok {
			t.Errorf("package %s is not in design.md's layer table: add it, with its layer and job", p)
			continue
		}
		for _, imp := range imports[p] {
			to, ok := layer[imp]
			if ok && to >= from {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must point down (docs/design.md)", p, from, imp, to)
			}
		}
	}
}
