package scenario_test

import (
	"errors"
	"fmt"

	"github.com/coordsim/coordsim/sim/scenario"
)

// Parse reads a scenario from YAML; keys not given keep sim.DefaultOptions().
func ExampleParse() {
	sc, err := scenario.Parse("race.yaml", []byte(`
name: race
protocol: v1
faults:
  preset: heavy
  plugin_latency_max: 1m
workload:
  streams_apps: 500
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	o := sc.Options
	fmt.Println(sc.Name, o.Protocol, o.Duration, o.Workload.StreamsApps, o.Faults.PluginLatencyMax, o.Faults.PluginTransient)
	// Output: race v1 48h0m0s 500 1m0s 0.2
}

// A bad file gives an *Error with the file, line, column and key.
func ExampleParse_error() {
	_, err := scenario.Parse("scenarios/foo.yaml", []byte(`name: foo
workload:
  membrs_max: 3
`))
	fmt.Println(err)
	var e *scenario.Error
	if errors.As(err, &e) {
		fmt.Println(e.Line, e.Column, e.Key)
	}
	// Output:
	// scenarios/foo.yaml:3:3: key "workload.membrs_max": unknown key (did you mean "members_max"?)
	// 3 3 workload.membrs_max
}

// Builtins lists the embedded scenarios, as `coordsim scenarios` does.
func ExampleBuiltins() {
	for _, sc := range scenario.Builtins() {
		w := sc.Options.Workload
		sinks := 0
		if sc.Options.Connect != nil {
			sinks = len(sc.Options.Connect.Connectors)
		}
		fmt.Printf("%-19s %s %6d groups %d sinks\n", sc.Name, sc.Options.Protocol,
			w.StreamsApps+w.ConsumerGroups+w.ShareGroups+w.SimpleGroups+w.RollingUpgradeGroups, sinks)
	}
	// Output:
	// ci                  v3    120 groups 0 sinks
	// default             v3   1260 groups 0 sinks
	// heavy               v3   1260 groups 0 sinks
	// large               v3 100000 groups 0 sinks
	// no-plugin           v3   1000 groups 0 sinks
	// quick               v3    400 groups 0 sinks
	// rolling-upgrade     v3     40 groups 0 sinks
	// share-at-least-once v3      0 groups 1 sinks
	// share-collision     v3      0 groups 3 sinks
	// share-faults        v3     17 groups 3 sinks
	// share-kill          v3      0 groups 1 sinks
	// share-live-config   v3      0 groups 2 sinks
	// share-migration     v3      0 groups 2 sinks
	// share-mixed-sinks   v3     65 groups 2 sinks
	// share-retry-policy  v3      0 groups 3 sinks
	// share-rollback      v3      0 groups 2 sinks
	// share-scaling       v3      0 groups 2 sinks
	// share-sink          v3      0 groups 1 sinks
	// v1-race             v1   1700 groups 0 sinks
	// v2-move-race        v2     80 groups 0 sinks
}

// Resolve takes what a user types after --scenario: a built-in name or a path.
func ExampleResolve() {
	sc, err := scenario.Resolve("v1-race")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sc.Name, sc.RequiredMarks)

	_, err = scenario.Resolve("nope")
	fmt.Println(errors.Is(err, scenario.ErrUnknown))
	// Output:
	// v1-race [v1-race]
	// true
}
