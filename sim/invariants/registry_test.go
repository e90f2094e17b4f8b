package invariants_test

import (
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/sim/invariants"
)

var update = flag.Bool("update", false, "rewrite docs/invariants.md's generated table")

const (
	docPath   = "../../docs/invariants.md"
	beginMark = "<!-- generated from sim/invariants by TestDocsTable: do not edit -->\n"
	endMark   = "<!-- end of the generated table -->"
)

// TestDocsTable proves docs/invariants.md's table is the registry's: it
// fails when an entry changed and the page was not regenerated (-update
// rewrites it).
func TestDocsTable(t *testing.T) {
	data, err := os.ReadFile(docPath)
	require.NoError(t, err)
	doc := string(data)
	i, j := strings.Index(doc, beginMark), strings.Index(doc, endMark)
	require.True(t, i >= 0 && j > i, "docs/invariants.md lost its generated-table markers")
	want := doc[:i+len(beginMark)] + invariants.Markdown() + doc[j:]
	if *update {
		require.NoError(t, os.WriteFile(docPath, []byte(want), 0o644))
		return
	}
	assert.Equal(t, want, doc, "docs/invariants.md is stale: go test ./sim/invariants -run TestDocsTable -update")
}

// TestRegistryEntries proves every entry is complete and its name unique
// and numbered: a violation's name leads to one entry.
func TestRegistryEntries(t *testing.T) {
	name := regexp.MustCompile(`^[0-9]+-[a-z0-9-]+$`)
	seen := map[string]bool{}
	for _, inv := range invariants.All() {
		assert.Regexp(t, name, inv.Name)
		assert.False(t, seen[inv.Name], "%s is listed twice", inv.Name)
		seen[inv.Name] = true
		for field, v := range map[string]string{"promise": inv.Promise, "rule": inv.Rule, "check": inv.Check} {
			assert.NotEmpty(t, v, "%s has no %s", inv.Name, field)
		}
		assert.True(t, strings.HasSuffix(inv.Promise, "."), "%s: the promise is a sentence", inv.Name)
		assert.NotEmpty(t, inv.Mutants, "%s: no mutant proves it", inv.Name)
		got, ok := invariants.ByName(inv.Name)
		assert.True(t, ok)
		assert.Equal(t, inv.Name, got.Name)
	}
	assert.Equal(t, len(seen), len(invariants.Names()))
}

// TestValidate proves an unknown name is refused with a typed error.
func TestValidate(t *testing.T) {
	require.NoError(t, invariants.Validate([]string{invariants.OneOwner, invariants.Routing}))
	err := invariants.Validate([]string{invariants.OneOwner, "9-one-ownr"})
	var unknown *invariants.UnknownError
	require.ErrorAs(t, err, &unknown)
	assert.Equal(t, "9-one-ownr", unknown.Name)
}
