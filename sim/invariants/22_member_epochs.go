package invariants

// MemberEpochs is invariant 22-member-epochs.
const MemberEpochs = "22-member-epochs"

func memberEpochs() Invariant {
	return Invariant{
		Name:    MemberEpochs,
		Promise: "A consumer or streams member's epoch never moves back (but for a static member's leave, at -2), and a member left revoking keeps its epoch (a streams member that finished one revocation may take its epoch + 1), so a member still revoking never jumps to the target epoch.",
		Rule:    "CurrentAssignmentBuilder.computeNextAssignment: with partitions (tasks) to revoke the member stays in UNREVOKED_PARTITIONS (UNREVOKED_TASKS) at its current epoch (the streams builder reconciles a member that acknowledged its revocation from its epoch + 1) and moves to the target assignment epoch only once it owes nothing; consumerGroupStaticMemberGroupLeave keeps a static member that left at epoch -2.",
		Check:   "sim/invariant_member_epochs.go: checker.checkMemberEpochs, on every write's current-assignment records against the latest state",
		Mutants: []string{"RevokingMemberGetsTargetEpoch"},
	}
}
