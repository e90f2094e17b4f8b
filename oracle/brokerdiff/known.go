package brokerdiff

import (
	"regexp"
	"strconv"
	"strings"
)

// KnownDifference is a field coordsim answers differently from Kafka on
// purpose, or one reported and not yet fixed: the comparison accepts it
// where it matches, and docs/fidelity.md lists it.
type KnownDifference struct {
	// Name is the divergence's name in docs/fidelity.md.
	Name string
	// Case and Step name where the difference shows; "" matches every
	// case, or every step of the case.
	Case, Step string
	// Field is the flattened path's last field name (".MemberEpoch"
	// matches every MemberEpoch), or a path prefix ending in "[" or "."
	// for a whole subtree.
	Field string
	// Match, when set, must also hold: the difference has the known shape
	// (the two values differ only as the divergence says).
	Match  func(d Difference) bool
	Reason string
}

// Known lists the differences the broker comparison accepts.
var Known = []KnownDifference{
	{
		Name: "initial-group-epoch", Field: ".MemberEpoch", Match: kafkaOneAhead,
		Reason: "Kafka 4.4 starts a consumer or share group at epoch 1, coordsim at 0: every epoch Kafka answers is coordsim's plus one",
	},
	{Name: "initial-group-epoch", Field: ".Epoch", Match: kafkaOneAhead, Reason: "as MemberEpoch"},
	{Name: "initial-group-epoch", Field: ".AssignmentEpoch", Match: kafkaOneAhead, Reason: "as MemberEpoch"},
	{Name: "initial-group-epoch", Field: ".ErrorMessage", Match: sameButNumbers, Reason: "the epochs in the message, as MemberEpoch"},
	{
		Name: "share-initialisation", Case: "share/join-heartbeat-leave-errors", Step: "join", Field: ".Assignment.",
		Reason: "Kafka assigns a share partition only once its share state is initialised, after the join; coordsim assigns at once",
	},
	{
		Name: "share-initialisation", Case: "share/describe-and-offsets-admin", Step: "join", Field: ".Assignment.",
		Reason: "as in the share heartbeat case",
	},
	{
		Name: "share-initialisation", Case: "share/describe-and-offsets-admin", Step: "describe-offsets", Field: ".Groups[0].Topics[0].Partitions[1].",
		Reason: "Kafka initialises the share state of every subscribed partition after the join (at the latest offset, 0 here); " +
			"coordsim keeps no state for a partition nobody fetched or altered, so its start offset and lag read -1",
	},
}

// Explain returns the reason a difference in step of case c is known and
// the index in Known of the entry that explains it, or "" and -1.
func Explain(c, step string, d Difference) (reason string, entry int) {
	for i, k := range Known {
		if (k.Case != "" && k.Case != c) || (k.Step != "" && k.Step != step) {
			continue
		}
		if !fieldMatches(d.Path, k.Field) || (k.Match != nil && !k.Match(d)) {
			continue
		}
		return k.Name + ": " + k.Reason, i
	}
	return "", -1
}

func fieldMatches(path, field string) bool {
	if strings.HasSuffix(field, "[") || strings.HasSuffix(field, ".") {
		return strings.HasPrefix(path, field)
	}
	return path == field || strings.HasSuffix(path, field)
}

// kafkaOneAhead reports whether both values are numbers and Kafka's is
// coordsim's plus one.
func kafkaOneAhead(d Difference) bool {
	o, err1 := strconv.Atoi(d.Ours)
	k, err2 := strconv.Atoi(d.Kafka)
	return err1 == nil && err2 == nil && k == o+1
}

var digits = regexp.MustCompile(`[0-9]+`)

// sameButNumbers reports whether the two values read the same once every
// number is N.
func sameButNumbers(d Difference) bool {
	return digits.ReplaceAllString(d.Ours, "N") == digits.ReplaceAllString(d.Kafka, "N")
}
