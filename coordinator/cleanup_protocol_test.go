package coordinator

import (
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCleanupProtocolTraits proves what each KIP-1331 cleanup protocol
// does, as the cycle, the delete path and the simulator ask it: only v1
// deletes without the uncertain marker and has the accepted race, only v2
// keeps the move race, only v3 fences plugin calls, guards deletes against
// pushes and refuses writes from an earlier load. An unknown name does
// nothing of the kind and is not valid.
func TestCleanupProtocolTraits(t *testing.T) {
	type traits struct{ valid, marks, fenced, guards, stale, race, moveRace bool }
	of := func(p CleanupProtocol) traits {
		return traits{p.Valid(), p.MarksBeforeDelete(), p.FencesPluginCalls(), p.GuardsDeletesAgainstPushes(),
			p.RefusesStaleLoadWrites(), p.AcceptsDataLossRace(), p.HasMoveRace()}
	}
	assert.Equal(t, traits{valid: true, race: true}, of(CleanupV1))
	assert.Equal(t, traits{valid: true, marks: true, moveRace: true}, of(CleanupV2))
	assert.Equal(t, traits{valid: true, marks: true, fenced: true, guards: true, stale: true}, of(CleanupV3))
	assert.Equal(t, traits{}, of("v4"))
	assert.Equal(t, []CleanupProtocol{CleanupV1, CleanupV2, CleanupV3}, CleanupProtocols())
}

// TestCleanupProtocolFlag proves the shared --protocol flag takes the
// three names and refuses anything else, leaving the value as it was.
func TestCleanupProtocolFlag(t *testing.T) {
	p := CleanupV3
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(&p, "protocol", CleanupProtocolUsage)
	require.NoError(t, fs.Parse([]string{"--protocol", "v1"}))
	assert.Equal(t, CleanupV1, p)
	require.Error(t, fs.Parse([]string{"--protocol", "V2"}))
	assert.Equal(t, CleanupV1, p)
}
