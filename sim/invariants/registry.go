package invariants

import (
	"fmt"
	"slices"
	"strings"
)

// Invariant is one entry of the registry.
type Invariant struct {
	// Name is how a violation names the invariant: its number, then a
	// slug ("1-no-tombstone-while-stored").
	Name string
	// Promise is what the invariant promises, in one sentence.
	Promise string
	// Rule is the Kafka rule it guards, with the Kafka code or KIP that
	// states it.
	Rule string
	// Check is where package sim checks it.
	Check string
	// Mutants are the internal/mutant.Set fields that must trip it: each,
	// planted alone, makes a short simulation violate this invariant
	// (sim's TestMutationScore).
	Mutants []string
}

// All returns every invariant, in the order runs list their checks; the
// caller owns the slice.
func All() []Invariant {
	return []Invariant{
		noTombstoneWhileStored(),
		clearOnlyObservedEpoch(),
		deleteOnlyEligible(),
		singleFlight(),
		offsetRetention(),
		liveness(),
		noPluginSideDataLoss(),
		replayEquality(),
		sharePartitions(),
		oneOwner(),
		readsCommitted(),
		deleteOnlyEmpty(),
		offsetExpiryOnTime(),
		groupExpiryNothingLeft(),
		noLiveMemberFenced(),
		v1LeaksExplained(),
		routing(),
		shareInFlightCap(),
		standbyApart(),
		dlqConservation(),
		pendingTxnOffsetsKept(),
		memberTimers(),
		memberEpochs(),
		coordinatorFence(),
		v1LossExplained(),
		revocationBounded(),
		referenceModel(),
	}
}

// Names returns every invariant's name, in All's order.
func Names() []string {
	all := All()
	out := make([]string, len(all))
	for i, inv := range all {
		out[i] = inv.Name
	}
	return out
}

// ByName returns the invariant called name.
func ByName(name string) (Invariant, bool) {
	for _, inv := range All() {
		if inv.Name == name {
			return inv, true
		}
	}
	return Invariant{}, false
}

// UnknownError refuses a name that is not in the registry.
type UnknownError struct{ Name string }

func (e *UnknownError) Error() string {
	return fmt.Sprintf("no invariant %q (coordsim invariants lists them)", e.Name)
}

// Validate returns an *UnknownError for the first of names not in the
// registry.
func Validate(names []string) error {
	known := Names()
	for _, n := range names {
		if !slices.Contains(known, n) {
			return &UnknownError{Name: n}
		}
	}
	return nil
}

// Markdown is the registry as the table of docs/invariants.md.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| name | promise | Kafka rule | mutants | checked in |\n|---|---|---|---|---|\n")
	for _, inv := range All() {
		mutants := make([]string, len(inv.Mutants))
		for i, m := range inv.Mutants {
			mutants[i] = "`" + m + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", inv.Name, cell(inv.Promise), cell(inv.Rule), strings.Join(mutants, ", "), cell(inv.Check))
	}
	return b.String()
}

// cell escapes a table cell's pipes.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
