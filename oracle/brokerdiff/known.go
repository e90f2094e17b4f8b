package brokerdiff

import "strings"

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
	Field  string
	Reason string
}

// Known lists the differences the broker comparison accepts.
var Known = []KnownDifference{
	{
		Name: "share-state-start-offset", Case: "share/describe-and-offsets-admin", Step: "describe-offsets", Field: ".Groups[0].Topics[0].Partitions[1].",
		Reason: "Kafka's persister initialises the share state of every subscribed partition after the join (at the latest offset, 0 here); " +
			"coordsim's initialisation records it at the group coordinator only, and the broker side keeps no state for a partition nobody fetched or altered, so its start offset and lag read -1",
	},
	{
		Name: "share-persisted-start-offset", Case: "share/fetch-acknowledge-deliveries", Step: "describe-offsets", Field: ".StartOffset",
		Reason: "Kafka answers DescribeShareGroupOffsets from the share coordinator's persisted state, and SharePartition writes each state change with the start offset it had before that change moves it " +
			"(writeShareGroupState reads startOffset(), maybeUpdateCachedStateAndOffsets moves it once the write completes), so the persisted start offset lags one write: 2 here, after the write that acknowledged 2-3; " +
			"coordsim answers the live share-partition's start offset, 5",
	},
}

// Explain returns the reason a difference in step of case c is known and
// the index in Known of the entry that explains it, or "" and -1.
func Explain(c, step string, d Difference) (reason string, entry int) {
	for i, k := range Known {
		if (k.Case != "" && k.Case != c) || (k.Step != "" && k.Step != step) {
			continue
		}
		if !fieldMatches(d.Path, k.Field) {
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
