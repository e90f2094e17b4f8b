package difftest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMemberIDLabels proves that the two sides' generated member ids are
// compared as labels in order of first appearance, whatever their form (a
// prefix and a UUID, a bare Kafka Uuid in a member id field), that a label
// sent in an op resolves to each side's own id, and that member lists are
// sorted again by label.
func TestMemberIDLabels(t *testing.T) {
	var kafka, ours idTable
	k := kafka.relabel(Outcome{Response: map[string]any{"memberId": "c-3813ef09-0b9c-47f9-b8ba-e0c0a50f9dd3"}})
	o := ours.relabel(Outcome{Response: map[string]any{"memberId": "c-a796eff1-7206-26ae-1f7c-59bd31106512"}})
	require.Equal(t, k.canonical(), o.canonical())
	require.Equal(t, "c-@m0", asMap(k.Response)["memberId"])

	k = kafka.relabel(Outcome{Response: map[string]any{"leader": "zx3y8i5fRbeLlGm7A_8tjw", "field": "validatedTopologyEpoch"}})
	o = ours.relabel(Outcome{Response: map[string]any{"leader": "nCHa7N0GJq4ffFbrkJV4Zw", "field": "validatedTopologyEpoch"}})
	require.Equal(t, k.canonical(), o.canonical())
	require.Equal(t, "@m1", asMap(k.Response)["leader"])
	require.Equal(t, "validatedTopologyEpoch", asMap(k.Response)["field"], "only id fields hold bare Uuids")

	op := ClassicHeartbeat{GroupID: "g", MemberID: "c-@m0"}
	require.Equal(t, "c-3813ef09-0b9c-47f9-b8ba-e0c0a50f9dd3", kafka.resolve(op).(ClassicHeartbeat).MemberID)
	require.Equal(t, "c-a796eff1-7206-26ae-1f7c-59bd31106512", ours.resolve(op).(ClassicHeartbeat).MemberID)
	require.Equal(t, "c-@m7", ours.resolve(ClassicHeartbeat{MemberID: "c-@m7"}).(ClassicHeartbeat).MemberID, "an unknown label stays")

	// Sorted by the ids each side drew, a member list is in label order
	// only once relabelled.
	k = kafka.relabel(Outcome{Response: []any{map[string]any{"memberId": "member-b"}, map[string]any{"memberId": "zx3y8i5fRbeLlGm7A_8tjw"}}})
	o = ours.relabel(Outcome{Response: []any{map[string]any{"memberId": "nCHa7N0GJq4ffFbrkJV4Zw"}, map[string]any{"memberId": "member-b"}}})
	require.Equal(t, k.canonical(), o.canonical())
}

func TestCheckKnownNamesRefusesUnknownNames(t *testing.T) {
	require.NoError(t, CheckKnownNames([]string{"classic-member-id-order", "topic-recreated"}))
	err := CheckKnownNames([]string{"topic-recreated", "no-such-entry"})
	require.ErrorContains(t, err, `"no-such-entry"`)
}
