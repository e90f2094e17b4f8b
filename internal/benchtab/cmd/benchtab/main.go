// Command benchtab runs benchmarks before and after a change, interleaved,
// and regenerates BENCHMARKS.md's tables from the results (package
// internal/benchtab says how). The Makefile's bench-compare and bench-md
// targets call it.
//
//	benchtab compare -base main [-head REV] -bench BenchmarkSimulation -count 6 -o bench.txt ./sim
//	benchtab table [-match RE] [-units a,b] bench.txt
//	benchtab update BENCHMARKS.md
//
// compare builds each package's test binary in a temporary git worktree of
// the base revision and in the current tree (or a worktree of -head), then
// runs them in rounds,
// every side once per round, each run after a "commit: <label>" line: the
// file is benchstat's input as it is (benchstat -col commit bench.txt) and
// the two sides shared the machine's load.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/coordsim/coordsim/internal/benchtab"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "benchtab:", err)
		os.Exit(2)
	}
}

const usage = `usage:
  benchtab compare -base REV [-head REV] [-bench RE] [-count N] [-benchtime T] -o FILE PKG...
  benchtab table [-match RE] [-units a,b] FILE
  benchtab update FILE.md`

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	switch args[0] {
	case "compare":
		return compare(args[1:], stderr)
	case "table":
		return table(args[1:], stdout)
	case "update":
		return update(args[1:])
	}
	return fmt.Errorf("unknown command %q\n%s", args[0], usage)
}

func table(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("table", flag.ContinueOnError)
	match := fs.String("match", ".", "benchmarks to show (a regular expression over names)")
	units := fs.String("units", "", "units to show, comma-separated (default every unit)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("table takes one results file")
	}
	spec := "file=" + fs.Arg(0) + " match=" + *match
	if *units != "" {
		spec += " units=" + *units
	}
	r, err := benchtab.ParseRegion(spec)
	if err != nil {
		return err
	}
	t, err := render(".", r)
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, t)
	return err
}

// render reads a region's results file, relative to dir, and renders it.
func render(dir string, r benchtab.Region) (string, error) {
	path := r.File
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	res, err := benchtab.Parse(f)
	if err != nil {
		return "", fmt.Errorf("%s: %w", r.File, err)
	}
	return res.Table(r.Match, r.Units)
}

func update(args []string) error {
	if len(args) != 1 {
		return errors.New("update takes one Markdown file")
	}
	doc, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	dir := filepath.Dir(args[0])
	out, err := benchtab.Update(string(doc), func(r benchtab.Region) (string, error) { return render(dir, r) })
	if err != nil {
		return fmt.Errorf("%s: %w", args[0], err)
	}
	if out == string(doc) {
		return nil
	}
	return os.WriteFile(args[0], []byte(out), 0o644)
}

func compare(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	base := fs.String("base", "main", "the git revision to compare with")
	head := fs.String("head", "", "the git revision to compare (default this tree, uncommitted changes included)")
	bench := fs.String("bench", ".", "benchmarks to run (go test -bench)")
	count := fs.Int("count", 6, "rounds; each runs every side once")
	benchtime := fs.String("benchtime", "", "go test -benchtime (default go test's)")
	out := fs.String("o", "", "results file (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() == 0 || *count < 1 {
		return errors.New("compare needs -o, -count >= 1 and at least one package")
	}
	if strings.Contains(strings.Join(fs.Args(), " "), "...") {
		return errors.New("name packages one by one: each gets its own test binary")
	}
	tmp, err := os.MkdirTemp("", "benchtab-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	baseTree := filepath.Join(tmp, "base")
	if err := command(stderr, "", "git", "worktree", "add", "--detach", baseTree, *base).Run(); err != nil {
		return fmt.Errorf("git worktree add %s: %w", *base, err)
	}
	defer command(stderr, "", "git", "worktree", "remove", "--force", baseTree).Run()
	headTree, err := os.Getwd()
	if err != nil {
		return err
	}
	if *head != "" {
		headTree = filepath.Join(tmp, "head")
		if err := command(stderr, "", "git", "worktree", "add", "--detach", headTree, *head).Run(); err != nil {
			return fmt.Errorf("git worktree add %s: %w", *head, err)
		}
		defer command(stderr, "", "git", "worktree", "remove", "--force", headTree).Run()
	}
	sides := []struct{ label, tree string }{
		{label: revLabel(baseTree, *base), tree: baseTree},
		{label: revLabel(headTree, "HEAD"), tree: headTree},
	}
	if sides[0].label == sides[1].label {
		sides[1].label += "+"
	}
	// Build every binary first, so the rounds measure only the runs.
	bins := map[[2]int]string{}
	for s, side := range sides {
		for p, pkg := range fs.Args() {
			bin := filepath.Join(tmp, fmt.Sprintf("side%d-pkg%d.test", s, p))
			if err := command(stderr, side.tree, "go", "test", "-c", "-o", bin, pkg).Run(); err != nil {
				return fmt.Errorf("building %s at %s: %w", pkg, side.label, err)
			}
			bins[[2]int{s, p}] = bin
		}
	}
	// Each run is written as it ends, so an interrupted comparison keeps
	// the rounds it finished.
	results, err := os.Create(*out)
	if err != nil {
		return err
	}
	defer results.Close()
	for round := range *count {
		fmt.Fprintf(stderr, "round %d of %d\n", round+1, *count)
		for s, side := range sides {
			for p, pkg := range fs.Args() {
				args := []string{"-test.run", "^$", "-test.bench", *bench, "-test.benchmem", "-test.count", "1"}
				if *benchtime != "" {
					args = append(args, "-test.benchtime", *benchtime)
				}
				cmd := command(stderr, filepath.Join(side.tree, pkg), bins[[2]int{s, p}], args...)
				var o bytes.Buffer
				cmd.Stdout = &o
				if err := cmd.Run(); err != nil {
					return fmt.Errorf("%s at %s: %w\n%s", pkg, side.label, err, o.String())
				}
				if _, err := fmt.Fprintf(results, "commit: %s\n%s", side.label, o.Bytes()); err != nil {
					return err
				}
			}
		}
	}
	return results.Close()
}

func command(stderr io.Writer, dir, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Stderr = dir, stderr
	return cmd
}

var dirty = regexp.MustCompile(`\S`)

// revLabel is rev's short commit in tree, with "-dirty" when tree has
// uncommitted changes to tracked files.
func revLabel(tree, rev string) string {
	hash, err := exec.Command("git", "-C", tree, "rev-parse", "--short", rev).Output()
	label := strings.TrimSpace(string(hash))
	if err != nil || label == "" {
		label = rev
	}
	status, err := exec.Command("git", "-C", tree, "status", "--porcelain", "--untracked-files=no").Output()
	if err == nil && dirty.Match(status) {
		label += "-dirty"
	}
	return label
}
