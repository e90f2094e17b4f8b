package coordinator

import (
	"fmt"
	"strings"
)

// CleanupProtocol selects how the KIP-1331 cleanup cycle guards a plugin
// delete. It is chosen once (Config.TopologyCleanupProtocol, the
// --protocol flag) and asked what it does through the methods below, each
// named for one way the protocols differ; no code compares protocol names.
type CleanupProtocol string

const (
	// CleanupV1 is the cycle as merged in apache/kafka#22622 (with #22676's
	// batching): scan, deleteTopology, conditional clear. It has the accepted
	// data-loss race of docs/kip1331.md §1.8.
	CleanupV1 CleanupProtocol = "v1"
	// CleanupV2 adds PR #22777's uncertain marker: scan, mark -2 (re-checking
	// eligibility), deleteTopology, finalize (-2 → -1, or back to -2 when a
	// push landed meanwhile). It closes the v1 race on one coordinator, but
	// not across a shard move: a delete from the partition's previous
	// coordinator can land after the new one stored a fresh description.
	CleanupV2 CleanupProtocol = "v2"
	// CleanupV3 is v2 with fenced plugin calls (coordsim's proposal,
	// docs/kip1331-v3.md): every setTopology and deleteTopology carries the
	// epoch at which this coordinator loaded the group's partition, and a
	// plugin.FencedStore refuses a call older than the newest it has seen,
	// which closes the move window. Within one load, no push of a group
	// overlaps a delete of it (deleteGuard), so a failed finalize cannot
	// leave a stored epoch whose row the delete erased. With a store that is
	// not fenced the calls are unfenced, as v2's, and it logs so once. The
	// default.
	CleanupV3 CleanupProtocol = "v3"
)

// cleanupTraits are what one protocol does; the table below is the only
// place a protocol's name meets its behaviour.
type cleanupTraits struct {
	marksBeforeDelete      bool
	fencesPluginCalls      bool
	guardsDeletesAgainst   bool
	refusesStaleLoadWrites bool
}

var cleanupProtocols = []struct {
	p CleanupProtocol
	t cleanupTraits
}{
	{CleanupV1, cleanupTraits{}},
	{CleanupV2, cleanupTraits{marksBeforeDelete: true}},
	{CleanupV3, cleanupTraits{marksBeforeDelete: true, fencesPluginCalls: true, guardsDeletesAgainst: true, refusesStaleLoadWrites: true}},
}

// CleanupProtocolUsage is the --protocol flag's help, shared by every
// command that takes it.
const CleanupProtocolUsage = "KIP-1331 cleanup protocol; v1 has the accepted data-loss race, v2 the move race, v3 fences plugin calls"

// CleanupProtocols lists the protocols, oldest first.
func CleanupProtocols() []CleanupProtocol {
	out := make([]CleanupProtocol, len(cleanupProtocols))
	for i, e := range cleanupProtocols {
		out[i] = e.p
	}
	return out
}

// CleanupProtocolNames lists the protocols' names, oldest first, for flags
// and scenario files.
func CleanupProtocolNames() []string {
	out := make([]string, len(cleanupProtocols))
	for i, e := range cleanupProtocols {
		out[i] = string(e.p)
	}
	return out
}

func (p CleanupProtocol) traits() (cleanupTraits, bool) {
	for _, e := range cleanupProtocols {
		if e.p == p {
			return e.t, true
		}
	}
	return cleanupTraits{}, false
}

// Valid reports whether p is one of the protocols.
func (p CleanupProtocol) Valid() bool {
	_, ok := p.traits()
	return ok
}

// MarksBeforeDelete reports whether p marks a group's stored epoch -2
// (uncertain) before it deletes the row, re-checking eligibility, and
// finalizes after (v2, v3). Without the marker (v1) a delete follows the
// scan directly and a push landing between them loses its description:
// the accepted data-loss race (AcceptsDataLossRace).
func (p CleanupProtocol) MarksBeforeDelete() bool { t, _ := p.traits(); return t.marksBeforeDelete }

// FencesPluginCalls reports whether p's setTopology and deleteTopology
// carry the partition's load epoch to a plugin.FencedStore, which refuses
// a call from a previous owner (v3): this closes the move race.
func (p CleanupProtocol) FencesPluginCalls() bool { t, _ := p.traits(); return t.fencesPluginCalls }

// GuardsDeletesAgainstPushes reports whether p keeps a push and a delete
// of one group from overlapping within one load (deleteGuard, v3), which
// closes hole 4 of docs/kip1331-v3.md.
func (p CleanupProtocol) GuardsDeletesAgainstPushes() bool {
	t, _ := p.traits()
	return t.guardsDeletesAgainst
}

// RefusesStaleLoadWrites reports whether a KIP-1331 write that follows a
// read made under an earlier load of its partition is refused with
// NOT_COORDINATOR (v3); v1 and v2 write as Kafka does.
func (p CleanupProtocol) RefusesStaleLoadWrites() bool {
	t, _ := p.traits()
	return t.refusesStaleLoadWrites
}

// AcceptsDataLossRace reports whether p has the data-loss race Kafka
// accepted (v1, docs/kip1331.md §1.8): the simulator counts its losses
// and explains leaked rows by it instead of failing an invariant.
func (p CleanupProtocol) AcceptsDataLossRace() bool { return p.Valid() && !p.MarksBeforeDelete() }

// HasMoveRace reports whether p keeps the move race (hole 2 of
// docs/kip1331-v3.md) as a violation: it marks before deleting, so the
// v1 race is closed, but does not fence, so a delete from a partition's
// previous coordinator can erase a description stored after a move (v2).
func (p CleanupProtocol) HasMoveRace() bool { return p.MarksBeforeDelete() && !p.FencesPluginCalls() }

// String implements flag.Value.
func (p *CleanupProtocol) String() string { return string(*p) }

// Set implements flag.Value: one of CleanupProtocolNames.
func (p *CleanupProtocol) Set(s string) error {
	if !CleanupProtocol(s).Valid() {
		return fmt.Errorf("value must be %s", cleanupProtocolChoice())
	}
	*p = CleanupProtocol(s)
	return nil
}

// cleanupProtocolChoice is "v1, v2 or v3", for messages.
func cleanupProtocolChoice() string {
	n := CleanupProtocolNames()
	return strings.Join(n[:len(n)-1], ", ") + " or " + n[len(n)-1]
}
