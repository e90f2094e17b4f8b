package scenario

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/coordsim/coordsim/sim"
)

// Marshal writes sc as a scenario file that Parse reads back to the same
// options: every parameter of sim.Params spelled out (faults as overrides
// of the `none` preset), the topic image, the Connect section as the file
// gave it, and the required marks. `run --emit-scenario FILE` uses it to
// turn a resolved run (a swarm seed, flag overrides) into a file.
func Marshal(sc *Scenario) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Resolved options; replay with: coordsim run --scenario FILE\n")
	fmt.Fprintf(&b, "name: %s\n", sc.Name)
	if sc.Description != "" {
		fmt.Fprintf(&b, "description: %s\n", strconv.Quote(sc.Description))
	}
	fmt.Fprintf(&b, "seed: %d\n", sc.Options.Seed)
	o := &sc.Options
	section := func(name string) {
		for _, p := range sim.Params {
			sec, key := p.Section()
			if sec != name {
				continue
			}
			indent := ""
			if name != "" {
				indent = "  "
			}
			v := p.Get(o)
			if p.Type == sim.TypeDuration || p.Type == sim.TypeEnum {
				v = strconv.Quote(v)
			}
			fmt.Fprintf(&b, "%s%s: %s\n", indent, key, v)
		}
	}
	section("")
	b.WriteString("faults:\n  preset: none\n")
	section("faults")
	b.WriteString("workload:\n")
	section("workload")
	if t := o.Workload.Topics; t != nil {
		b.WriteString("  topics:\n")
		names := make([]string, 0, len(t))
		for n := range t {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			fmt.Fprintf(&b, "    %s: %d\n", strconv.Quote(n), t[n])
		}
	}
	if sc.connect != nil {
		data, err := yaml.Marshal(sc.connect)
		if err != nil {
			return nil, fmt.Errorf("scenario: connect section: %w", err)
		}
		b.WriteString("connect:\n")
		for _, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
			b.WriteString("  " + line + "\n")
		}
	} else if o.Connect != nil {
		return nil, fmt.Errorf("scenario: %s has a Connect workload that did not come from a file; it cannot be written", sc.Name)
	}
	if len(sc.RequiredMarks) > 0 {
		b.WriteString("required_marks:\n")
		for _, m := range sc.RequiredMarks {
			fmt.Fprintf(&b, "  - %s\n", strconv.Quote(m))
		}
	}
	return b.Bytes(), nil
}
