package invariants

// ReferenceModel is invariant 26-reference-model.
const ReferenceModel = "26-reference-model"

func referenceModel() Invariant {
	return Invariant{
		Name:    ReferenceModel,
		Promise: "The groups, group and assignment epochs, members (their epochs, held, revoking and target partitions or tasks) and committed and pending offsets a broker's committed shard answers are those a small map-based model of the committed log, written apart from shard's replay, derives.",
		Rule:    "A group coordinator's state is a function of __consumer_offsets read as a compacted topic: per record key the latest value wins and a tombstone deletes (CoordinatorRecord keys); OffsetMetadataManager.replayEndTransactionMarker commits a producer's pending offsets unless the committed offset's record is newer, and an abort drops them.",
		Check:   "sim/invariant_reference_model.go: checker.checkReferenceModel, with checkReplay (every replay_check_every events and at the end), against sim/refmodel fed every committed record before the log folds it",
		Mutants: []string{"ReplayCommitsAbortedTxn"},
	}
}
