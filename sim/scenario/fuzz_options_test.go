package scenario

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/coordsim/coordsim/sim"
)

// FuzzScenarioWithOverrides fuzzes the scenario decoder together with the
// option table the CLI applies on top of it (sim.Params, as `--flag value`):
// a parameter that refuses a value changes nothing; options that validate
// survive Marshal and Parse unchanged; and the replay arguments of the
// overridden options, applied to the scenario's, give them back.
func FuzzScenarioWithOverrides(f *testing.F) {
	for _, name := range builtinNames() {
		data, err := builtinFS.ReadFile(builtinFile(name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(0), "1h", uint8(3), "7")
	}
	f.Add([]byte("name: x\n"), uint8(5), "0.5", uint8(9), "-1")
	f.Add([]byte("name: x\nfaults: {preset: heavy}\n"), uint8(20), "1e309", uint8(21), "NaN")
	f.Add([]byte("name: x\nworkload: {members_min: 3, members_max: 3}\n"), uint8(11), "2", uint8(12), "9999999999")
	f.Fuzz(func(t *testing.T, data []byte, i1 uint8, v1 string, i2 uint8, v2 string) {
		sc, err := Parse("fuzz.yaml", data)
		if err != nil {
			return
		}
		base := sc.Options
		o := base
		for _, ov := range []struct {
			i uint8
			v string
		}{{i1, v1}, {i2, v2}} {
			p := sim.Params[int(ov.i)%len(sim.Params)]
			before := o
			if err := p.Set(&o, ov.v); err != nil && !reflect.DeepEqual(before, o) {
				t.Fatalf("--%s %q refused (%v) but changed the options", p.Flag, ov.v, err)
			}
		}
		if o.Validate() != nil {
			return
		}
		out := *sc
		out.Options = o
		emitted, err := Marshal(&out)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		back, err := Parse("emitted.yaml", emitted)
		if err != nil {
			t.Fatalf("the emitted scenario does not parse: %v\n%s", err, emitted)
		}
		want := o
		want.Store, back.Options.Store = nil, nil
		if !reflect.DeepEqual(want, back.Options) {
			t.Fatalf("Marshal/Parse changed the options:\nwant %+v\ngot  %+v", want, back.Options)
		}

		args := sim.ReplayArgs(base, o)
		replayed := base
		for j := 0; j+1 < len(args); j += 2 {
			flag, v := args[j][2:], args[j+1]
			switch flag {
			case "seed":
				n, err := strconv.ParseUint(v, 10, 64)
				if err != nil {
					t.Fatalf("replay --seed %q: %v", v, err)
				}
				replayed.Seed = n
			case "faults":
				fs, err := sim.PresetFaults(sim.FaultPreset(v))
				if err != nil {
					t.Fatalf("replay --faults %q: %v", v, err)
				}
				replayed.Faults = fs
			default:
				p := sim.ParamByFlag(flag)
				if p == nil {
					t.Fatalf("replay names an unknown flag --%s", flag)
				}
				if err := p.Set(&replayed, v); err != nil {
					t.Fatalf("replay --%s %q: %v", flag, v, err)
				}
			}
		}
		for _, p := range sim.Params {
			if p.Get(&replayed) != p.Get(&o) {
				t.Fatalf("replay args %v give --%s %s, want %s", args, p.Flag, p.Get(&replayed), p.Get(&o))
			}
		}
	})
}
