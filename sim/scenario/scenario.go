package scenario

import (
	"embed"
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
	return Parse(path, data)
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
	return Parse(builtinFile(name), data)
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

// validationError maps a failure of sim.Options.Validate ("sim: invalid
// <field>: <why>") to the key that caused it and that key's line: of the keys
// involved, the one given last in the file (a later key contradicts an earlier
// one); when none was given, line 1.
func (d *decoder) validationError(err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "sim: ")
	rest, ok := strings.CutPrefix(err.Error(), "sim: invalid ")
	if !ok {
		return d.errAt(nil, "", "%s", msg)
	}
	field, why, _ := strings.Cut(rest, ": ")
	for _, keys := range validateKeys(field, why) {
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
	if keys := validateKeys(field, why); len(keys) > 0 && len(keys[0]) > 0 {
		return d.errAt(nil, keys[0][0], "%s", msg)
	}
	return d.errAt(nil, "", "%s", msg)
}

// validateKeys lists, for a field named by sim.Options.Validate, the scenario
// keys that set it: tiers tried in order, the specific keys before the
// sections they sit in.
func validateKeys(field, why string) [][]string {
	w := func(keys ...string) []string {
		for i, k := range keys {
			keys[i] = "workload." + k
		}
		return keys
	}
	f := func(keys ...string) []string {
		for i, k := range keys {
			keys[i] = "faults." + k
		}
		return keys
	}
	sections := []string{"faults.preset", "faults"}
	switch field {
	case "check-interval":
		return [][]string{{"check_interval"}}
	case "workload groups":
		return [][]string{w("streams_apps", "consumer_groups", "share_groups", "simple_groups"), {"workload"}}
	case "members":
		return [][]string{w("members_min", "members_max"), {"workload"}}
	case "lifetime":
		return [][]string{w("lifetime_min", "lifetime_max"), {"workload"}}
	case "arrival-window", "commit-interval", "topology-upgrade-prob", "admin-interval":
		return [][]string{w(strings.ReplaceAll(field, "-", "_")), {"workload"}}
	case "faults":
		if strings.Contains(why, "add up") {
			return [][]string{f("plugin_transient", "plugin_permanent", "plugin_applied_transient"), sections}
		}
		if strings.Contains(why, "share") {
			return [][]string{f("share_persist_fail_prob", "share_dlq_fail_prob", "share_leader_moves_per_hour", "task_kills_per_hour"), sections}
		}
		return [][]string{f("plugin_transient", "plugin_permanent", "plugin_applied_transient", "plugin_burst_prob",
			"move_during_cycle_prob", "append_failure_prob", "member_crash_prob", "lost_heartbeat_prob"), sections}
	case "plugin-latency":
		return [][]string{f("plugin_latency_min", "plugin_latency_max"), sections}
	case "plugin-burst-length", "shard-moves-per-hour":
		return [][]string{f(strings.ReplaceAll(field, "-", "_")), sections}
	case "delays":
		return [][]string{f("load_delay", "commit_delay_max"), sections}
	case "delete-past-move":
		return [][]string{f("delete_past_move_prob", "delete_past_move_latency"), sections}
	case "limits":
		return [][]string{{"replay_check_every"}}
	}
	if strings.HasPrefix(field, "connect.") {
		// "connect.connectors[0].put_latency": the key itself when it is one,
		// else the nearest enclosing item or section given.
		var tiers [][]string
		for k := field; k != ""; {
			tiers = append(tiers, []string{k})
			i := strings.LastIndexAny(k, ".[")
			if i < 0 {
				break
			}
			k = k[:i]
		}
		return tiers
	}
	// duration, brokers, partitions, retention, protocol, and any field added
	// later whose name is its key.
	return [][]string{{strings.ReplaceAll(field, "-", "_")}}
}
