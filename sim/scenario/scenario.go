package scenario

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/coordsim/coordsim/sim"
)

// builtinFS holds the built-in scenarios, one builtin/<name>.yaml each.
//
//go:embed builtin/*.yaml
var builtinFS embed.FS

// Scenario is a named, validated set of simulation options.
type Scenario struct {
	// Name is the scenario's name; Options.Scenario carries it too.
	Name string
	// Description says what the scenario is for (one or two sentences).
	Description string
	// Options are sim.DefaultOptions() with the file's keys applied; they
	// pass Options.Validate.
	Options sim.Options
	// RequiredMarks are coverage marks a sweep of this scenario must reach
	// (the sweep fails if one is never reached). The scenario only carries them.
	RequiredMarks []string
	// Source is what reproduces the scenario on the command line: the
	// built-in's name, or the path the file was loaded from (empty for Parse).
	Source string

	// connect is the file's connect section, kept so Marshal can write it back.
	connect *yaml.Node
}

// Parse reads a scenario from YAML. name is used in error messages (usually
// the file name). Every error is an *Error with the line and the offending
// key; Parse never panics, whatever data holds.
func Parse(name string, data []byte) (*Scenario, error) {
	sc, d, perr := parse(name, data)
	if perr != nil {
		return nil, perr
	}
	if err := sc.Options.Validate(); err != nil {
		return nil, d.validationError(err)
	}
	return sc, nil
}

// Load reads and parses the scenario file at path. A file that cannot be read
// gives the os error (wrapped); a bad file gives an *Error.
func Load(path string) (*Scenario, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	defer f.Close()
	// Read one byte past the limit so Parse can report an oversized file.
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	sc, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	sc.Source = path
	return sc, nil
}

// Builtin returns the built-in scenario called name (see [Builtins]); an
// unknown name gives an error wrapping [ErrUnknown].
func Builtin(name string) (*Scenario, error) {
	var data []byte
	err := ErrUnknown
	if name != "" && !strings.ContainsAny(name, "/\\") {
		data, err = builtinFS.ReadFile(builtinFile(name))
	}
	if err != nil {
		return nil, fmt.Errorf("scenario: %w %q (built-in: %s; or give a path to a .yaml file)",
			ErrUnknown, truncate(name, maxValueQuoted), strings.Join(builtinNames(), ", "))
	}
	sc, err := Parse(builtinFile(name), data)
	if err != nil {
		return nil, err
	}
	sc.Source = name
	return sc, nil
}

// Builtins returns every built-in scenario, sorted by name. Each call parses
// them afresh, so callers may change what they get. The built-ins are part of
// the program: one that does not parse is a bug (a test guards it) and panics.
func Builtins() []*Scenario {
	names := builtinNames()
	out := make([]*Scenario, 0, len(names))
	for _, name := range names {
		sc, err := Builtin(name)
		if err != nil {
			panic(fmt.Sprintf("scenario: built-in %q is invalid: %v", name, err))
		}
		out = append(out, sc)
	}
	return out
}

// Resolve returns the built-in scenario called nameOrPath, or, when it ends in
// .yaml or .yml or contains a path separator, the scenario loaded from that file.
func Resolve(nameOrPath string) (*Scenario, error) {
	ext := strings.ToLower(path.Ext(nameOrPath))
	if ext == ".yaml" || ext == ".yml" || strings.ContainsAny(nameOrPath, "/"+string(os.PathSeparator)) {
		return Load(nameOrPath)
	}
	return Builtin(nameOrPath)
}

func builtinFile(name string) string { return "builtin/" + name + ".yaml" }

// builtinNames lists the embedded files' names, sorted.
func builtinNames() []string {
	entries, err := builtinFS.ReadDir("builtin")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".yaml"); ok && !e.IsDir() {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// validationError maps a failure of sim.Options.Validate to the key that
// caused it and that key's line: of the keys involved (a *sim.OptionError
// names them; a Connect error names its field as "sim: invalid connect...."),
// the one given last in the file, since a later key contradicts an earlier
// one. When the file gives none of them, the error names the first key and
// line 1 (or a section the file gives).
func (d *decoder) validationError(err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "sim: ")
	var tiers [][]string
	var oe *sim.OptionError
	if errors.As(err, &oe) {
		tiers = append(tiers, oe.Keys)
		for _, k := range oe.Keys {
			if i := strings.LastIndexByte(k, '.'); i >= 0 {
				sec := k[:i]
				tiers = append(tiers, []string{sec + ".preset", sec})
				break
			}
		}
	} else if rest, ok := strings.CutPrefix(err.Error(), "sim: invalid "); ok {
		field, _, _ := strings.Cut(rest, ": ")
		// "connect.connectors[0].put_latency": the key itself when it is one,
		// else the nearest enclosing item or section given.
		for k := field; k != ""; {
			tiers = append(tiers, []string{k})
			i := strings.LastIndexAny(k, ".[")
			if i < 0 {
				break
			}
			k = k[:i]
		}
	} else {
		return d.errAt(nil, "", "%s", msg)
	}
	for _, keys := range tiers {
		var best *yaml.Node
		bestKey := ""
		for _, k := range keys {
			if n, given := d.given[k]; given && (best == nil || n.Line > best.Line ||
				n.Line == best.Line && n.Column > best.Column) {
				best, bestKey = n, k
			}
		}
		if best != nil {
			return d.errAt(best, bestKey, "%s", msg)
		}
	}
	return d.errAt(nil, tiers[0][0], "%s", msg)
}
