package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/memstore"
	"github.com/coordsim/coordsim/sim/scenario"
)

// docFiles are the documents whose example commands a user pastes.
var docFiles = []string{"../README.md", "../docs/*.md", "../sim/scenario/SCHEMA.md", "../BENCHMARKS.md"}

var (
	fenceRE  = regexp.MustCompile("(?ms)^```(\\w*)\\n(.*?)^```")
	inlineRE = regexp.MustCompile("`((?:go run \\./cmd/\\w+|coordsim) [^`]+)`")
	// placeholderRE is a word the reader replaces (NAME|FILE, COMMAND, P,
	// the shard i/4 of machine i).
	placeholderRE = regexp.MustCompile(`^[A-Z][A-Z_]*(\|[A-Z_]+)*$|\||^i/`)
)

// docCommand is one example command and where it stands.
type docCommand struct {
	where string
	line  string
}

// docCommands extracts every coordsim command of the documents: the lines
// of shell code blocks, the "replay: " lines of plain (output) blocks and
// the inline code that starts with the program, each cut at a comment, a
// redirection, a pipe or an &&.
func docCommands(t *testing.T) []docCommand {
	t.Helper()
	var files []string
	for _, g := range docFiles {
		m, err := filepath.Glob(g)
		require.NoError(t, err)
		require.NotEmpty(t, m, g)
		files = append(files, m...)
	}
	var cmds []docCommand
	add := func(where, line string) {
		line = strings.Join(strings.Fields(line), " ")
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "replay: "))
		for _, cut := range []string{" #", " >", " |", " &&", " 2>"} {
			if i := strings.Index(line, cut); i >= 0 {
				line = line[:i]
			}
		}
		if strings.HasPrefix(line, "go run ./cmd/") || strings.HasPrefix(line, "coordsim ") {
			cmds = append(cmds, docCommand{where, strings.TrimSpace(line)})
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		text := string(data)
		lineOf := func(off int) string { return f + ":" + strconv.Itoa(strings.Count(text[:off], "\n")+1) }
		for _, m := range fenceRE.FindAllStringSubmatchIndex(text, -1) {
			if lang := text[m[2]:m[3]]; lang != "" && lang != "sh" && lang != "console" {
				continue
			}
			output := text[m[2]:m[3]] == "" // a plain block quotes output (or a synopsis): only its replay lines are commands
			for i, l := range strings.Split(text[m[4]:m[5]], "\n") {
				if !output || strings.HasPrefix(l, "replay: ") {
					add(f+":"+strconv.Itoa(strings.Count(text[:m[4]], "\n")+1+i), l)
				}
			}
		}
		prose := fenceRE.ReplaceAllStringFunc(text, func(b string) string { return strings.Repeat("\n", strings.Count(b, "\n")) })
		for _, m := range inlineRE.FindAllStringSubmatchIndex(prose, -1) {
			add(lineOf(m[0]), prose[m[2]:m[3]])
		}
	}
	return cmds
}

// TestDocExamplesParse proves every coordsim command in the README, docs/,
// the scenario schema and BENCHMARKS.md names a command and flags that
// exist, with values and a scenario that pass validation, so the documents
// cannot drift from the program. Nothing runs: the program stops after
// validating (app.checkOnly). serve, which has no such stop, has each flag
// checked against its help. Commands with a placeholder (NAME|FILE,
// COMMAND, [flags]) are left out.
func TestDocExamplesParse(t *testing.T) {
	cmds := docCommands(t)
	require.Greater(t, len(cmds), 20, "the extraction found the examples")
	checked := 0
	for _, c := range cmds {
		if strings.ContainsAny(c.line, "<>[…") || strings.Contains(c.line, "...") { // <CI's list>, [flags], …: placeholders
			t.Logf("left out (a placeholder): %s: %s", c.where, c.line)
			continue
		}
		words := shellWords(t, c.line)
		prog := words[:1]
		if words[0] == "go" {
			prog = words[:3]
		}
		words = words[len(prog):]
		if slices.ContainsFunc(words, placeholderRE.MatchString) {
			t.Logf("left out (a placeholder): %s: %s", c.where, c.line)
			continue
		}
		a := newApp()
		if prog[len(prog)-1] == "./cmd/mysim" { // the README's custom-store program
			a = newApp(WithStore("mine", func() (plugin.Store, error) { return memstore.New(), nil }))
		} else if len(prog) == 3 {
			require.Equal(t, "./cmd/coordsim", prog[2], "%s: %s", c.where, c.line)
		}
		a.checkOnly = true
		var out, errb bytes.Buffer
		if len(words) > 0 && words[0] == "serve" {
			a.run([]string{"serve", "-h"}, &out, &errb)
			for _, w := range words[1:] {
				if name, ok := strings.CutPrefix(w, "--"); ok {
					name, _, _ = strings.Cut(name, "=")
					assert.Contains(t, out.String(), "  -"+name+" ", "%s: %s: serve has no flag --%s", c.where, c.line, name)
				}
			}
			checked++
			continue
		}
		code := a.run(words, &out, &errb)
		assert.Equal(t, exitOK, code, "%s: %s\n%s", c.where, c.line, errb.String())
		checked++
		if len(words) > 0 && words[0] != "version" {
			out.Reset()
			errb.Reset()
			code := a.run([]string{words[0], "--help"}, &out, &errb)
			assert.Equal(t, exitOK, code, "%s: %s --help", c.where, words[0])
			assert.Contains(t, out.String(), "usage: coordsim "+words[0], "%s: %s --help prints its help", c.where, words[0])
		}
	}
	t.Logf("%d commands checked of %d found", checked, len(cmds))
}

// TestDocInstallCommandsName proves the README's `go install` and `go run`
// lines name packages that exist: a local path is a main package of the
// checkout, a module path is this module's.
func TestDocInstallCommandsName(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	mod, err := os.ReadFile("../go.mod")
	require.NoError(t, err)
	module := strings.TrimSpace(strings.TrimPrefix(strings.SplitN(string(mod), "\n", 2)[0], "module"))
	re := regexp.MustCompile("(?m)go (?:install|run) ((?:\\./|github\\.com/)[\\w./-]+?)(?:@latest)?(?:[\\s`]|$)")
	found := 0
	for _, m := range re.FindAllStringSubmatch(string(readme), -1) {
		pkg := m[1]
		if rest, ok := strings.CutPrefix(pkg, module+"/"); ok {
			pkg = "./" + rest
		} else if strings.HasPrefix(pkg, "github.com/") {
			t.Errorf("README installs %s, not a package of %s", m[1], module)
			continue
		}
		if pkg == "./cmd/mysim" {
			continue // the README's own example program
		}
		main, err := os.ReadFile(filepath.Join("..", pkg, "main.go"))
		if assert.NoError(t, err, "README names %s", m[1]) {
			assert.Contains(t, string(main), "package main", m[1])
		}
		found++
	}
	assert.GreaterOrEqual(t, found, 3, "go run, go install ./cmd/coordsim and @latest")
}

// TestDocFlagsExist proves every --flag the documents name (in tables and
// prose too) is a flag of run, replay, sweep or serve, apart from the
// other tools' flags they quote.
func TestDocFlagsExist(t *testing.T) {
	others := map[string]string{
		"bootstrap-server": "kafka-share-groups.sh", "delete": "kafka-share-groups.sh", "reset-offsets": "kafka-share-groups.sh",
		"for": "kubectl wait", "timeout": "kubectl wait",
		"every": "internal/loadtest/cmd/servemem", "warmup": "internal/loadtest/cmd/servemem",
		"workers": "gremlins unleash", "timeout-coefficient": "gremlins unleash", "output": "gremlins unleash",
	}
	known := map[string]bool{}
	for _, cmd := range []string{"run", "replay", "sweep", "serve", "diff"} {
		_, help, _ := runCLI(cmd, "-h")
		for _, m := range regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`).FindAllStringSubmatch(help, -1) {
			known[m[1]] = true
		}
	}
	require.True(t, known["stop-at"] && known["seeds"] && known["listen"] && known["retention"], "the help lists the flags")
	flagRE := regexp.MustCompile(`(?:^|[\s\x60(])--([a-z][a-z0-9-]*)`)
	for _, g := range docFiles {
		files, err := filepath.Glob(g)
		require.NoError(t, err)
		for _, f := range files {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			for i, line := range strings.Split(string(data), "\n") {
				for _, m := range flagRE.FindAllStringSubmatch(line, -1) {
					if _, other := others[m[1]]; !other {
						assert.True(t, known[m[1]], "%s:%d names --%s, which no coordsim command has", f, i+1, m[1])
					}
				}
			}
		}
	}
}

// TestReadmeNamesEveryBuiltinScenario proves the README mentions every
// built-in scenario by name, so `coordsim scenarios` holds no surprise.
func TestReadmeNamesEveryBuiltinScenario(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	for _, sc := range scenario.Builtins() {
		assert.Contains(t, string(readme), "`"+sc.Name+"`", "README.md names built-in scenario %s", sc.Name)
	}
}
