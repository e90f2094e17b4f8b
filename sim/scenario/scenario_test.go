package scenario

import (
	"errors"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/sim"
	"github.com/coordsim/coordsim/sim/connectsim"
)

func mustPreset(t *testing.T, p sim.FaultPreset) sim.Faults {
	t.Helper()
	f, err := sim.PresetFaults(p)
	require.NoError(t, err)
	return f
}

func totalGroups(w sim.Workload) int {
	return w.StreamsApps + w.ConsumerGroups + w.ShareGroups + w.SimpleGroups
}

func TestBuiltinsParseAndValidate(t *testing.T) {
	// Every embedded scenario parses, validates, is named after its file, has a
	// description and a leading comment, and Builtins lists exactly the
	// expected set, sorted.
	scs := Builtins()
	var names []string
	for _, sc := range scs {
		names = append(names, sc.Name)
	}
	require.Equal(t, []string{"ci", "default", "heavy", "large", "no-plugin", "quick", "rolling-upgrade",
		"share-at-least-once", "share-collision", "share-faults", "share-kill", "share-live-config", "share-migration", "share-mixed-sinks", "share-retry-policy", "share-rollback", "share-scaling", "share-sink",
		"v1-race", "v2-move-race"}, names)

	for _, sc := range scs {
		t.Run(sc.Name, func(t *testing.T) {
			assert.NoError(t, sc.Options.Validate())
			assert.Equal(t, sc.Name, sc.Options.Scenario)
			assert.NotEmpty(t, sc.Description)

			data, err := builtinFS.ReadFile(builtinFile(sc.Name))
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(string(data), "# "+sc.Name+": "),
				"a built-in opens with a comment that names it and says what it is for")

			again, err := Builtin(sc.Name)
			require.NoError(t, err)
			assert.Equal(t, sc, again)
		})
	}
}

func TestDefaultBuiltinEqualsDefaultOptions(t *testing.T) {
	// The "default" scenario is exactly sim.DefaultOptions(), checked field by
	// field (recursing into Workload and Faults) so a drift names the field.
	sc, err := Builtin("default")
	require.NoError(t, err)
	assert.Empty(t, sc.RequiredMarks)

	var compare func(path string, got, want reflect.Value)
	compare = func(path string, got, want reflect.Value) {
		if got.Kind() == reflect.Struct {
			for i := range got.NumField() {
				compare(path+"."+got.Type().Field(i).Name, got.Field(i), want.Field(i))
			}
			return
		}
		if got.Kind() == reflect.Func {
			// testify cannot compare funcs; a scenario never sets one.
			assert.True(t, got.IsNil() && want.IsNil(), "%s must be nil", path)
			return
		}
		assert.Equal(t, want.Interface(), got.Interface(), path)
	}
	compare("Options", reflect.ValueOf(sc.Options), reflect.ValueOf(sim.DefaultOptions()))
	assert.True(t, reflect.DeepEqual(sim.DefaultOptions(), sc.Options), "DeepEqual treats nil funcs as equal")
}

func TestBuiltinsMatchTheirPurpose(t *testing.T) {
	// Each built-in has the shape its description promises, so an edit that
	// quietly defeats a scenario's purpose fails here.
	get := func(name string) sim.Options {
		sc, err := Builtin(name)
		require.NoError(t, err)
		return sc.Options
	}

	quick := get("quick")
	assert.LessOrEqual(t, quick.Duration, 24*time.Hour)
	assert.GreaterOrEqual(t, totalGroups(quick.Workload), 100)
	assert.LessOrEqual(t, totalGroups(quick.Workload), 1000)
	assert.Equal(t, mustPreset(t, sim.FaultsLight), quick.Faults)

	race, err := Builtin("v1-race")
	require.NoError(t, err)
	ro := race.Options
	assert.Equal(t, coordinator.CleanupV1, ro.Protocol)
	assert.True(t, ro.Plugin)
	assert.Contains(t, race.RequiredMarks, "v1-race")
	assert.Equal(t, time.Minute, ro.Faults.PluginLatencyMax)
	assert.GreaterOrEqual(t, ro.Faults.MoveDuringCycleProb, 0.3)
	assert.GreaterOrEqual(t, ro.Workload.TopologyUpgradeProb, 0.5)
	assert.Greater(t, ro.Workload.StreamsApps, totalGroups(ro.Workload)/2, "mostly streams apps")
	assert.LessOrEqual(t, ro.Workload.LifetimeMax, time.Hour, "short-lived")

	heavy := get("heavy")
	assert.Equal(t, mustPreset(t, sim.FaultsHeavy), heavy.Faults)

	noPlugin := get("no-plugin")
	assert.False(t, noPlugin.Plugin)
	assert.Positive(t, noPlugin.Workload.StreamsApps)

	large := get("large")
	assert.Equal(t, 100_000, totalGroups(large.Workload))
	assert.Greater(t, large.Workload.SimpleGroups, totalGroups(large.Workload)/2, "mostly simple groups")
	assert.LessOrEqual(t, large.Workload.MembersMax, 2, "few active members")
}

func TestParseErrors(t *testing.T) {
	// Each kind of bad file gives an *Error at the exact line and column of the
	// offending key or value, naming the key, and never a panic.
	big := "name: x\ndescription: \"" + strings.Repeat("a", maxFileBytes) + "\"\n"
	tests := []struct {
		name, in  string
		line, col int
		key, msg  string
	}{
		{"unknown key at depth 2", "name: x\nworkload:\n  membrs_max: 3\n",
			3, 3, "workload.membrs_max", `unknown key (did you mean "members_max"?)`},
		{"connector on a topic that is not a data topic", "name: x\nconnect:\n  topics: {a: 1}\n  connectors:\n    - config: {name: c, topics: b}\n",
			5, 7, "connect.connectors[0]", `topic "b" is not a data topic`},
		{"producer rate out of range", "name: x\nconnect:\n  topics: {a: 1}\n  producers:\n    - {topic: a, rate: 0, batch_records: 1}\n  connectors:\n    - config: {name: c, topics: a}\n",
			5, 24, "connect.producers[0].rate", "must be in (0, 1000000] records/s"},
		{"unknown connector key", "name: x\nconnect:\n  topics: {a: 1}\n  connectors:\n    - config: {name: c, topics: a}\n      put_latncy_max: 1s\n",
			6, 7, "connect.connectors[0].put_latncy_max", `unknown key (did you mean "put_latency_max"?)`},
		{"bad share fault probability", "name: x\nfaults:\n  share_dlq_fail_prob: 2\n",
			3, 24, "faults.share_dlq_fail_prob", "a probability must be in [0, 1]"},
		{"unknown key in faults", "name: x\nfaults:\n  preset: light\n  plugin_latncy_max: 1m\n",
			4, 3, "faults.plugin_latncy_max", `unknown key (did you mean "plugin_latency_max"?)`},
		{"unknown top key, nothing close", "name: x\nbananas: 3\n",
			2, 1, "bananas", "unknown key"},
		{"known key at the wrong level", "name: x\nstreams_apps: 3\n",
			2, 1, "streams_apps", "unknown key (it belongs under workload:)"},
		{"fault key under workload", "name: x\nworkload:\n  load_delay: 1s\n",
			3, 3, "workload.load_delay", "unknown key (it belongs under faults:)"},
		{"string where an integer is expected", "name: x\nbrokers: three\n",
			2, 10, "brokers", `expects an integer, got the string "three"`},
		{"float where an integer is expected", "name: x\nworkload:\n  streams_apps: 1.5\n",
			3, 17, "workload.streams_apps", "expects an integer, got the number 1.5"},
		{"string where a probability is expected", "name: x\nfaults:\n  member_crash_prob: often\n",
			3, 22, "faults.member_crash_prob", `expects a number, got the string "often"`},
		{"string where a bool is expected", "name: x\nplugin: yes\n",
			2, 9, "plugin", `expects true or false, got the string "yes"`},
		{"integer where a string is expected", "name: 2024\n",
			1, 7, "name", "expects a string, got the integer 2024 (quote it to make it a string)"},
		{"mapping where a scalar is expected", "name: x\nseed: {a: 1}\n",
			2, 7, "seed", "expects an unsigned integer, got a mapping"},
		{"null value", "name: x\nduration:\n",
			2, 10, "duration", "expects a duration such as \"10m\", got no value (null)"},
		{"bad duration", "name: x\nduration: 2d\n",
			2, 11, "duration", `"2d" is not a duration (there is no day unit: write 48h for two days)`},
		{"garbage duration", "name: x\nworkload:\n  lifetime_max: soon\n",
			3, 17, "workload.lifetime_max", `"soon" is not a duration (units: ms, s, m, h)`},
		{"duration without a unit", "name: x\ncheck_interval: 600\n",
			2, 17, "check_interval", "a number needs a unit: 600s"},
		{"out of range, mapped from Validate", "name: x\nbrokers: 0\n",
			2, 10, "brokers", "invalid brokers: must be in [1, 64]"},
		{"retention not whole minutes", "name: x\nretention: 90s\n",
			2, 12, "retention", "invalid retention: must be at least 1m, a whole number of minutes"},
		{"cross-field, the later key", "name: x\nworkload:\n  members_min: 5\n  members_max: 4\n",
			4, 16, "workload.members_max", "invalid workload.members_min, workload.members_max: need members_min <= members_max"},
		{"cross-field, the only key given", "name: x\nworkload:\n  lifetime_max: 10m\n",
			3, 17, "workload.lifetime_max", "need lifetime_min <= lifetime_max"},
		{"plugin probabilities add up past 1", "name: x\nfaults:\n  preset: heavy\n  plugin_transient: 0.99\n",
			4, 21, "faults.plugin_transient", "plugin fault probabilities add up to more than 1"},
		{"latency max below a preset's min", "name: x\nfaults:\n  preset: heavy\n  plugin_latency_max: 1ms\n",
			4, 23, "faults.plugin_latency_max", "need plugin_latency_min <= plugin_latency_max"},
		{"too many groups in all", "name: x\nworkload:\n  simple_groups: 1_000_000\n  consumer_groups: 1_000_000\n",
			4, 20, "workload.consumer_groups", "at most 2 000 000 groups in total"},
		{"negative replay interval", "name: x\nreplay_check_every: -1\n",
			2, 21, "replay_check_every", "invalid replay_check_every: must be in [0, 2147483647]"},
		{"probability above 1", "name: x\nfaults:\n  lost_heartbeat_prob: 1.5\n",
			3, 24, "faults.lost_heartbeat_prob", "a probability must be in [0, 1], got 1.5"},
		{"negative group count", "name: x\nworkload:\n  share_groups: -1\n",
			3, 17, "workload.share_groups", "invalid workload.share_groups: must be in [0, 2000000]"},
		{"not a number", "name: x\nworkload:\n  arrival_window: .nan\n",
			3, 19, "workload.arrival_window", "must be a finite number"},
		{"negative seed", "name: x\nseed: -1\n",
			2, 7, "seed", "must be an integer in [0, 18446744073709551615], got -1"},
		{"partitions beyond int32", "name: x\npartitions: 3000000000\n",
			2, 13, "partitions", "must be an integer in [-2147483648, 2147483647], got 3000000000"},
		{"unknown protocol", "name: x\nprotocol: v4\n",
			2, 11, "protocol", `must be v1 or v2 or v3, got "v4"`},
		{"unknown preset", "name: x\nfaults: medium\n",
			2, 9, "faults", `unknown fault preset "medium" (none, light, heavy)`},
		{"unknown preset in a mapping", "name: x\nfaults:\n  plugin_transient: 0.1\n  preset: medium\n",
			4, 11, "faults.preset", `unknown fault preset "medium"`},
		{"faults as a list", "name: x\nfaults: [light]\n",
			2, 9, "faults", "expects a preset (none, light, heavy) or a mapping of preset and overrides, got a list"},
		{"workload as a scalar", "name: x\nworkload: big\n",
			2, 11, "workload", `expects a mapping of keys, got the string "big"`},
		{"duplicate key", "name: x\nbrokers: 3\nbrokers: 4\n",
			3, 1, "brokers", "duplicate key (first given at line 2)"},
		{"duplicate key at depth 2", "name: x\nworkload:\n  members_max: 3\n  members_max: 4\n",
			4, 3, "workload.members_max", "duplicate key (first given at line 3)"},
		{"duplicate preset", "name: x\nfaults:\n  preset: light\n  preset: heavy\n",
			4, 3, "faults.preset", "duplicate key (first given at line 3)"},
		{"empty file", "",
			1, 0, "", `empty file (a scenario needs at least "name")`},
		{"only comments", "# nothing here\n\n",
			1, 0, "", "empty file"},
		{"null document", "---\n~\n",
			1, 0, "", "empty file"},
		{"list root", "- name: x\n",
			1, 1, "", "the file must be a mapping of keys (name: ..., duration: ...), got a list"},
		{"scalar root", "hello\n",
			1, 1, "", `got the string "hello"`},
		{"missing name", "# c\nbrokers: 3\n",
			2, 1, "name", "required key missing"},
		{"bad name", "name: \"my scenario\"\n",
			1, 7, "name", "a name is 1 to 64 letters"},
		{"YAML syntax error", "name: x\nworkload:\n  members_max: [1,\n",
			3, 0, "", "invalid YAML: did not find expected node content"},
		{"tab indentation", "name: x\n\tbrokers: 3\n",
			2, 0, "", "invalid YAML"},
		{"two documents", "name: x\n---\nname: y\n",
			2, 1, "", "more than one YAML document"},
		{"merge key", "base: &b {brokers: 3}\nname: x\n<<: *b\n",
			1, 1, "base", "unknown key"},
		{"merge key only", "name: x\n<<: {brokers: 3}\n",
			2, 1, "<<", "merge keys (<<) are not supported"},
		{"non-scalar key", "name: x\n? [a, b]\n: 1\n",
			2, 3, "", "a key must be a plain name, got a list"},
		{"zero-partition topic", "name: x\nworkload:\n  topics:\n    orders: 0\n",
			4, 13, "workload.topics.orders", "must be an integer in [1, 100000], got 0"},
		{"illegal topic name", "name: x\nworkload:\n  topics:\n    \"a/b\": 3\n",
			4, 5, "workload.topics.a/b", "not a legal Kafka topic name"},
		{"duplicate topic", "name: x\nworkload:\n  topics:\n    a: 1\n    a: 2\n",
			5, 5, "workload.topics.a", "duplicate topic (first given at line 4)"},
		{"duplicate property", "name: x\nconnect:\n  topics: {a: 1}\n  connectors:\n    - config:\n        name: c\n        name: d\n",
			7, 9, "connect.connectors[0].config.name", "duplicate property (first given at line 6)"},
		{"empty topics", "name: x\nworkload:\n  topics: {}\n",
			3, 11, "workload.topics", "lists no topic"},
		{"marks not a list", "name: x\nrequired_marks: v1-race\n",
			2, 17, "required_marks", `expects a list of mark names, got the string "v1-race"`},
		{"duplicate mark", "name: x\nrequired_marks: [a, b, a]\n",
			2, 24, "required_marks", `mark "a" listed twice (first at line 2)`},
		{"empty mark", "name: x\nrequired_marks: [\"\"]\n",
			2, 18, "required_marks", "a mark name cannot be empty"},
		{"file too large", big,
			1, 0, "", "file too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Parse("scenarios/foo.yaml", []byte(tt.in))
			require.Error(t, err)
			assert.Nil(t, sc)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, "scenarios/foo.yaml", e.File)
			assert.Equal(t, tt.line, e.Line, "line")
			assert.Equal(t, tt.col, e.Column, "column")
			assert.Equal(t, tt.key, e.Key, "key")
			assert.Contains(t, e.Msg, tt.msg)
		})
	}
}

func TestErrorString(t *testing.T) {
	// Error() reads file:line:column: key "k": message, dropping the column
	// and the key when they are unknown.
	sc, err := Parse("scenarios/foo.yaml", []byte("name: x\nworkload:\n  membrs_max: 3\n"))
	require.Nil(t, sc)
	assert.EqualError(t, err, `scenarios/foo.yaml:3:3: key "workload.membrs_max": unknown key (did you mean "members_max"?)`)

	_, err = Parse("empty.yaml", nil)
	assert.EqualError(t, err, `empty.yaml:1: empty file (a scenario needs at least "name")`)

	e := &Error{File: "f.yaml", Line: 7, Column: 2, Msg: "bad"}
	assert.Equal(t, "f.yaml:7:2: bad", e.Error())
}

func TestSuggest(t *testing.T) {
	// A near miss (typo, case, '-' for '_', camelCase) suggests the known key;
	// a far one suggests nothing.
	known := []string{"members_min", "members_max", "lifetime_max"}
	assert.Equal(t, ` (did you mean "members_max"?)`, suggest("membrs_max", known))
	assert.Equal(t, ` (did you mean "members_max"?)`, suggest("membersMax", known))
	assert.Equal(t, ` (did you mean "members_max"?)`, suggest("members-max", known))
	assert.Equal(t, ` (did you mean "lifetime_max"?)`, suggest("lifetme_max", known))
	assert.Empty(t, suggest("seed", known))
	assert.Empty(t, suggest("x", nil))
}

func TestFaultPresetOverrides(t *testing.T) {
	// A faults mapping starts from its preset (wherever the preset key sits)
	// and changes only the overridden fields; without a preset it starts from
	// the default faults; a bare preset name gives the preset unchanged.
	heavy := mustPreset(t, sim.FaultsHeavy)
	light := mustPreset(t, sim.FaultsLight)

	tests := []struct {
		name, faults string
		want         func() sim.Faults
	}{
		{"preset name", "faults: none", func() sim.Faults { return sim.Faults{} }},
		{"preset in a mapping", "faults:\n  preset: heavy\n", func() sim.Faults { return heavy }},
		{"preset then overrides", "faults:\n  preset: heavy\n  plugin_latency_max: 1m\n  plugin_burst_length: 3\n  shard_moves_per_hour: 0\n",
			func() sim.Faults {
				f := heavy
				f.PluginLatencyMax, f.PluginBurstLength, f.ShardMovesPerHour = time.Minute, 3, 0
				return f
			}},
		{"overrides before the preset", "faults:\n  move_during_cycle_prob: 1\n  load_delay: 0\n  preset: heavy\n",
			func() sim.Faults {
				f := heavy
				f.MoveDuringCycleProb, f.LoadDelay = 1, 0
				return f
			}},
		{"overrides without a preset", "faults:\n  member_crash_prob: 0.5\n",
			func() sim.Faults {
				f := light
				f.MemberCrashProb = 0.5
				return f
			}},
		{"every field overridden on none", "faults:\n  preset: none\n" +
			"  plugin_transient: 0.1\n  plugin_permanent: 0.2\n  plugin_applied_transient: 0.3\n" +
			"  plugin_latency_min: 1ms\n  plugin_latency_max: 2ms\n  plugin_burst_prob: 0.4\n" +
			"  plugin_burst_length: 7\n  shard_moves_per_hour: 2.5\n  move_during_cycle_prob: 0.6\n" +
			"  load_delay: 3s\n  append_failure_prob: 0.7\n  commit_delay_max: 4ms\n" +
			"  member_crash_prob: 0.8\n  lost_heartbeat_prob: 0.9\n",
			func() sim.Faults {
				return sim.Faults{
					PluginTransient: 0.1, PluginPermanent: 0.2, PluginAppliedTransient: 0.3,
					PluginLatencyMin: time.Millisecond, PluginLatencyMax: 2 * time.Millisecond,
					PluginBurstProb: 0.4, PluginBurstLength: 7, ShardMovesPerHour: 2.5,
					MoveDuringCycleProb: 0.6, LoadDelay: 3 * time.Second, AppendFailureProb: 0.7,
					CommitDelayMax: 4 * time.Millisecond, MemberCrashProb: 0.8, LostHeartbeatProb: 0.9,
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Parse("f.yaml", []byte("name: x\n"+tt.faults))
			require.NoError(t, err)
			assert.Equal(t, tt.want(), sc.Options.Faults)
		})
	}
}

func TestParseAppliesEveryKey(t *testing.T) {
	// Every key lands in its Options field, keys not given keep their
	// defaults, and YAML's integer forms, anchors and aliases work.
	in := `
name: all-keys
description: every key once
seed: 18446744073709551615
duration: 36h30m
brokers: 5
partitions: 0x20
retention: 2h
check_interval: 90s
protocol: v1
plugin: false
workload:
  streams_apps: 1_000
  consumer_groups: 2
  share_groups: 3
  simple_groups: 4
  members_min: 2
  members_max: 9
  lifetime_min: &short 5m
  lifetime_max: *short
  arrival_window: 1
  commit_interval: 10s
  topology_upgrade_prob: 0.5
  standby_prob: 0.25
  racks: 4
  range_prob: 0.75
  admin_interval: 0
  topics:
    orders: 12
    payments.v2: 1
replay_check_every: 1000
required_marks: [v1-race, shard-move-during-cycle]
`
	sc, err := Parse("all.yaml", []byte(in))
	require.NoError(t, err)
	want := sim.DefaultOptions()
	want.Scenario = "all-keys"
	want.Seed = 18446744073709551615
	want.Duration = 36*time.Hour + 30*time.Minute
	want.Brokers, want.Partitions = 5, 32
	want.Retention, want.CheckInterval = 2*time.Hour, 90*time.Second
	want.Protocol, want.Plugin = coordinator.CleanupV1, false
	want.Workload = sim.Workload{
		StreamsApps: 1000, ConsumerGroups: 2, ShareGroups: 3, SimpleGroups: 4,
		MembersMin: 2, MembersMax: 9, LifetimeMin: 5 * time.Minute, LifetimeMax: 5 * time.Minute,
		ArrivalWindow: 1, CommitInterval: 10 * time.Second, TopologyUpgradeProb: 0.5, StandbyProb: 0.25,
		Racks: 4, RangeProb: 0.75, AdminInterval: 0, Topics: map[string]int32{"orders": 12, "payments.v2": 1},
	}
	want.ReplayCheckEvery = 1000
	assert.Equal(t, want, sc.Options)
	assert.Equal(t, "all-keys", sc.Name)
	assert.Equal(t, "every key once", sc.Description)
	assert.Equal(t, []string{"v1-race", "shard-move-during-cycle"}, sc.RequiredMarks)
}

func TestMinimalFileIsTheDefaults(t *testing.T) {
	// A file with only a name gives sim.DefaultOptions() under that name.
	sc, err := Parse("min.yaml", []byte("name: mine\n"))
	require.NoError(t, err)
	want := sim.DefaultOptions()
	want.Scenario = "mine"
	assert.Equal(t, want, sc.Options)
	assert.Empty(t, sc.Description)
	assert.Nil(t, sc.RequiredMarks)
}

func TestValidationErrorFallback(t *testing.T) {
	// A Validate failure whose keys the file does not give lands on line 1
	// with the field's key, and an error in an unexpected format is kept whole.
	d := &decoder{file: "f.yaml", given: nil}
	e := d.validationError(&sim.OptionError{Keys: []string{"workload.members_min", "workload.members_max"}, Why: "need members_min <= members_max"})
	assert.Equal(t, &Error{File: "f.yaml", Line: 1, Key: "workload.members_min", Msg: "invalid workload.members_min, workload.members_max: need members_min <= members_max"}, e)
	e = d.validationError(errors.New("sim: invalid connect.connectors[0].put_latency: bad"))
	assert.Equal(t, &Error{File: "f.yaml", Line: 1, Key: "connect.connectors[0].put_latency", Msg: "invalid connect.connectors[0].put_latency: bad"}, e)
	e = d.validationError(errors.New("something else"))
	assert.Equal(t, &Error{File: "f.yaml", Line: 1, Msg: "something else"}, e)
}

func TestLoadAndResolve(t *testing.T) {
	// Resolve takes a built-in name or a .yaml/.yml path; Load reports bad
	// files with their path and missing files with the os error; an unknown
	// name wraps ErrUnknown and lists the built-ins.
	dir := t.TempDir()
	good := filepath.Join(dir, "mine.yml")
	require.NoError(t, os.WriteFile(good, []byte("name: mine\nbrokers: 4\n"), 0o600))
	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("name: bad\nbrokers: four\n"), 0o600))

	sc, err := Resolve(good)
	require.NoError(t, err)
	assert.Equal(t, "mine", sc.Name)
	assert.Equal(t, 4, sc.Options.Brokers)

	sc, err = Resolve("quick")
	require.NoError(t, err)
	assert.Equal(t, "quick", sc.Name)

	_, err = Resolve(bad)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, bad, e.File)
	assert.Equal(t, 2, e.Line)

	_, err = Resolve(filepath.Join(dir, "missing.yaml"))
	assert.ErrorIs(t, err, fs.ErrNotExist)

	_, err = Resolve("no-such-scenario")
	assert.ErrorIs(t, err, ErrUnknown)
	assert.ErrorContains(t, err, "ci, default, heavy, large, no-plugin, quick, rolling-upgrade, share-at-least-once")

	for _, name := range []string{"", "../scenario", "builtin/quick", "quick.yaml"} {
		_, err = Builtin(name)
		assert.ErrorIs(t, err, ErrUnknown, name)
	}

	big := filepath.Join(dir, "big.yaml")
	require.NoError(t, os.WriteFile(big, []byte("name: big\n#"+strings.Repeat("x", maxFileBytes)), 0o600))
	_, err = Load(big)
	require.ErrorAs(t, err, &e)
	assert.Contains(t, e.Msg, "file too large")
}

func TestSchemaIsDocumented(t *testing.T) {
	// Every key the parser knows appears in SCHEMA.md and in the package doc,
	// so the documented schema cannot fall behind the code.
	schema, err := os.ReadFile("SCHEMA.md")
	require.NoError(t, err)
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	require.NoError(t, err)
	require.NotNil(t, f.Doc)
	pkgDoc := f.Doc.Text()

	d := &decoder{}
	var keys []string
	keys = append(keys, keysOf(d.topFields(&Scenario{}))...)
	keys = append(keys, keysOf(d.workloadFields(&sim.Options{}))...)
	faultKeys := keysOf(d.faultFields(&sim.Options{}))
	require.Len(t, keys, 16+18)
	require.Greater(t, len(faultKeys), 20, "the faults section lost its keys")
	var connectKeys []string
	connectKeys = append(connectKeys, keysOf(d.connectFields(&connectsim.Workload{}))...)
	connectKeys = append(connectKeys, keysOf(d.producerFields(&connectsim.Producer{}))...)
	connectKeys = append(connectKeys, keysOf(d.connectorFields(&connectsim.Connector{}))...)
	for _, k := range connectKeys {
		assert.Contains(t, string(schema), "`"+k+"`", "SCHEMA.md documents connect key %s", k)
	}
	for _, k := range keys {
		assert.Contains(t, string(schema), "`"+k+"`", "SCHEMA.md documents %s", k)
		assert.Regexp(t, `(?m)^\s+`+k+`\s`, pkgDoc, "the package doc documents %s", k)
	}
	// Fault keys come with their kinds (sim's fault_*.go): SCHEMA.md's
	// generated table lists each; the package doc points there.
	for _, k := range faultKeys {
		assert.Contains(t, string(schema), "`"+k+"`", "SCHEMA.md documents fault key %s", k)
	}
	for _, sc := range Builtins() {
		assert.Contains(t, string(schema), "`"+sc.Name+"`", "SCHEMA.md lists built-in %s", sc.Name)
		assert.Contains(t, pkgDoc, sc.Name, "the package doc lists built-in %s", sc.Name)
	}
}

func TestSchemaExampleParses(t *testing.T) {
	// The example in SCHEMA.md is a valid scenario.
	schema, err := os.ReadFile("SCHEMA.md")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(schema), "## Example\n\n```yaml\n")
	require.True(t, ok)
	example, _, ok := strings.Cut(rest, "```")
	require.True(t, ok)
	sc, err := Parse("SCHEMA.md example", []byte(example))
	require.NoError(t, err)
	assert.Equal(t, "my-race", sc.Name)
	assert.Equal(t, map[string]int32{"orders": 12, "payments": 6}, sc.Options.Workload.Topics)
}

func TestTruncateAndPlain(t *testing.T) {
	// Values quoted in messages are cut on a rune boundary and shown quoted
	// when they would not print on one line as they are.
	assert.Equal(t, "abc", truncate("abc", 3))
	assert.Equal(t, "ab…", truncate("abcd", 2))
	assert.Equal(t, "é…", truncate("ééé", 3))
	assert.Equal(t, "12", plain("12"))
	assert.Equal(t, `"1\n2"`, plain("1\n2"))

	_, err := Parse("f.yaml", []byte("name: x\nbrokers: !!int \"1\\n2\"\n"))
	assert.EqualError(t, err, `f.yaml:2:10: key "brokers": expects an integer, got the integer "1\n2"`)

	// An integer beyond int64 is out of range, not of the wrong type.
	_, err = Parse("f.yaml", []byte("name: x\nbrokers: 18446744073709551615\n"))
	assert.EqualError(t, err, `f.yaml:2:10: key "brokers": must be an integer in [-2147483648, 2147483647], got 18446744073709551615`)
	_, err = Parse("f.yaml", []byte("name: x\nseed: !!int x\n"))
	assert.EqualError(t, err, `f.yaml:2:7: key "seed": expects an unsigned integer, got the integer x`)
}
