package coordtest_test

import (
	"fmt"
	"time"

	"github.com/coordsim/coordsim/coordinator/coordtest"
	"github.com/coordsim/coordsim/plugin/memstore"
	"github.com/coordsim/coordsim/shard"
)

// A consumer joins, commits and stops heartbeating: after the session
// timeout the harness's timers fence it and the group is empty, with its
// offset kept.
func Example() {
	h, _ := coordtest.New(coordtest.WithTopics(map[string]int32{"foo": 3}))
	r, _ := h.JoinConsumer("g", "m1", "foo")
	_ = h.Commit("g", "m1", r.MemberEpoch, "foo", 0, 42)
	h.Advance(45 * time.Second)
	g, _ := h.Group("g")
	offs, _ := h.Offsets("g")
	fmt.Println(g.State, len(g.Members), "members,", len(offs), "offset; replay equal:", h.CheckReplay() == nil)
	// Output: EMPTY 0 members, 1 offset; replay equal: true
}

// Seed an empty streams group with a stored description, then run one
// KIP-1331 cleanup cycle: the store row is deleted and the stored epoch
// goes back to -1, so the next sweep may tombstone the group.
func ExampleHarness_CleanupCycle() {
	topology := shard.Topology{Epoch: 1, Subtopologies: []shard.Subtopology{{ID: "0", SourceTopics: []string{"in"}}}}
	h, _ := coordtest.New(coordtest.WithPlugin(memstore.New()), coordtest.WithTopics(map[string]int32{"in": 2}),
		coordtest.WithGroups(coordtest.StreamsGroup("app", topology).WithMember("m1").WithStoredDescription().Empty()))
	before, _ := h.Group("app")
	started := h.CleanupCycle()
	after, _ := h.Group("app")
	fmt.Println("stored", before.StoredDescriptionTopologyEpoch, "-> cycle started:", started, "-> stored", after.StoredDescriptionTopologyEpoch)
	// Output: stored 1 -> cycle started: true -> stored -1
}
