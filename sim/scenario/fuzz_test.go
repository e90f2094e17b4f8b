package scenario

import (
	"errors"
	"testing"
)

func FuzzParse(f *testing.F) {
	// Parse never panics, every error it returns is an *Error with a line of
	// at least 1, and whatever it accepts is named and passes Validate.
	for _, name := range builtinNames() {
		data, err := builtinFS.ReadFile(builtinFile(name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"", "name: x\n", "- a\n", "name: x\nname: y\n", "name: x\nworkload:\n  membrs_max: 3\n",
		"name: x\nfaults: {preset: heavy, plugin_transient: 0.9}\n", "a: &a [*a]\n",
		"name: x\nworkload:\n  topics: {a: 1, b: 2}\n", "name: x\n<<: {brokers: 3}\n",
		"name: x\nduration: !!int 3\n", "name: !!binary aGVsbG8=\n", "name: x\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Parse("fuzz.yaml", data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error is %T, not *Error: %v", err, err)
			}
			if e.Line < 1 || e.Column < 0 || e.File != "fuzz.yaml" {
				t.Fatalf("bad position in %#v", e)
			}
			if sc != nil {
				t.Fatalf("a scenario and an error at once")
			}
			return
		}
		if sc.Name == "" || sc.Options.Scenario != sc.Name {
			t.Fatalf("accepted a scenario without a name: %#v", sc)
		}
		if err := sc.Options.Validate(); err != nil {
			t.Fatalf("accepted invalid options: %v", err)
		}
	})
}
