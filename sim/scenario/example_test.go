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
		fmt.Printf("%-9s %s %6d groups\n", sc.Name, sc.Options.Protocol,
			w.StreamsApps+w.ConsumerGroups+w.ShareGroups+w.SimpleGroups)
	}
	// Output:
	// ci        v2    120 groups
	// default   v2   1260 groups
	// heavy     v2   1260 groups
	// large     v2 100000 groups
	// no-plugin v2   1000 groups
	// quick     v2    400 groups
	// v1-race   v1   1700 groups
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
