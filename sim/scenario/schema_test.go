package scenario

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/sim"
)

var updateSchema = flag.Bool("update-schema", false, "rewrite SCHEMA.md's generated tables from sim.Params")

// Rows of the top-level table that are not parameters, before and after
// the parameter rows.
var (
	topHead = []string{
		"| `name` | string | required | 1 to 64 of `[A-Za-z0-9._-]`, starting with a letter or digit | | the scenario's name |",
		"| `description` | string | \"\" | | | what the scenario is for |",
		"| `seed` | unsigned integer | 1 | | | the PRNG seed; a sweep replaces it with each seed |",
	}
	topTail = []string{
		"| `faults` | preset or mapping | light | | | see [faults](#faults) |",
		"| `workload` | mapping | see below | | | see [workload](#workload) |",
		"| `connect` | mapping | none | | | Kafka Connect producers and sink connectors; see [connect](#connect) |",
		"| `required_marks` | list of strings | none | | | coverage marks a sweep of this scenario must reach; the sweep fails if one is never reached |",
	}
)

func typeName(p *sim.Param) string {
	if p.Type == sim.TypeEnum {
		return "`" + strings.Join(p.Values, "` or `") + "`"
	}
	return string(p.Type)
}

// show prints a value for the schema: durations the short way (48h, 10m).
func show(p *sim.Param, o *sim.Options) string {
	v := p.Get(o)
	if p.Type == sim.TypeDuration {
		for _, cut := range []string{"m0s", "h0m"} {
			if strings.HasSuffix(v, cut) {
				v = strings.TrimSuffix(v, cut[1:])
			}
		}
	}
	return v
}

func swarmDoc(p *sim.Param) string {
	if p.Swarm == nil {
		return ""
	}
	return p.Swarm.Doc
}

// schemaTables renders the generated tables: "top", "workload", "faults".
func schemaTables() map[string]string {
	def := sim.DefaultOptions()
	light, heavy := sim.Options{}, sim.Options{}
	light.Faults, _ = sim.PresetFaults(sim.FaultsLight)
	heavy.Faults, _ = sim.PresetFaults(sim.FaultsHeavy)
	out := map[string]string{}
	var b strings.Builder
	b.WriteString("| key | type | default | range | swarm | meaning |\n|---|---|---|---|---|---|\n")
	for _, r := range topHead {
		b.WriteString(r + "\n")
	}
	for _, p := range sim.Params {
		if !strings.Contains(p.Key, ".") {
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", p.Key, typeName(p), show(p, &def), p.Range(), swarmDoc(p), p.Doc)
		}
	}
	for _, r := range topTail {
		b.WriteString(r + "\n")
	}
	out["top"] = b.String()

	b.Reset()
	b.WriteString("| key | type | default | range | swarm | meaning |\n|---|---|---|---|---|---|\n")
	for _, p := range sim.Params {
		if k, ok := strings.CutPrefix(p.Key, "workload."); ok {
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", k, typeName(p), show(p, &def), p.Range(), swarmDoc(p), p.Doc)
		}
	}
	b.WriteString("| `topics` | mapping | built-in topics | 1 to 100 000 partitions each | | topic name → partitions; names are Kafka topic names; omit the key for the default topics |\n")
	out["workload"] = b.String()

	b.Reset()
	b.WriteString("| key | type | light | heavy | range | swarm | meaning |\n|---|---|---|---|---|---|---|\n")
	b.WriteString("| `preset` | `none`, `light`, `heavy` | | | | | the base the overrides apply to (`none`: all zero) |\n")
	for _, p := range sim.Params {
		if k, ok := strings.CutPrefix(p.Key, "faults."); ok {
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s | %s |\n", k, typeName(p), show(p, &light), show(p, &heavy), p.Range(), swarmDoc(p), p.Doc)
		}
	}
	out["faults"] = b.String()
	return out
}

var generated = regexp.MustCompile(`(?s)<!-- generated from sim.Params: (\w+) -->\n.*?<!-- end generated -->`)

// TestSchemaMatchesParams proves SCHEMA.md's key tables are the ones
// sim.Params renders: the table is the one place an option is defined.
// Regenerate with: go test ./sim/scenario -run TestSchemaMatchesParams -update-schema
func TestSchemaMatchesParams(t *testing.T) {
	data, err := os.ReadFile("SCHEMA.md")
	require.NoError(t, err)
	tables := schemaTables()
	seen := map[string]bool{}
	got := generated.ReplaceAllStringFunc(string(data), func(m string) string {
		name := generated.FindStringSubmatch(m)[1]
		seen[name] = true
		return "<!-- generated from sim.Params: " + name + " -->\n" + tables[name] + "<!-- end generated -->"
	})
	for name := range tables {
		assert.True(t, seen[name], "SCHEMA.md has no generated %q table", name)
	}
	if *updateSchema {
		require.NoError(t, os.WriteFile("SCHEMA.md", []byte(got), 0o644))
		return
	}
	assert.Equal(t, got, string(data), "SCHEMA.md is out of date: go test ./sim/scenario -run TestSchemaMatchesParams -update-schema")
}
