package shard

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	sub1    = "subtopology-1"
	sub2    = "subtopology-2"
	process = "process_id"
)

// inRole builds a taskSets holding tasks in one role only (Kafka's
// TaskAssignmentTestUtil.mkTasksTuple).
func inRole(r taskRole, a ...TopicPartitions) taskSets {
	var t taskSets
	t[r] = asg(a...)
	return t
}

// taskLookups fakes the group's lookups the builder reads: the process
// owning each active task, and the processes holding standby and warm-up
// tasks.
type taskLookups struct {
	activeProcess func(topic string, p int32) (string, bool)
	standby       func(topic string, p int32) []string
	warmup        func(topic string, p int32) []string
}

func ownedByProcess(pr string) func(string, int32) (string, bool) {
	return func(string, int32) (string, bool) { return pr, pr != "" }
}

func noHolders(string, int32) []string { return nil }

func onThisProcess(string, int32) []string { return []string{process} }

func (l taskLookups) predicates(processID string) unreleasedTasks {
	if l.activeProcess == nil {
		l.activeProcess = ownedByProcess("")
	}
	if l.standby == nil {
		l.standby = noHolders
	}
	if l.warmup == nil {
		l.warmup = noHolders
	}
	return &streamsUnreleasedTasks{holders: lookupHolders{l}, processID: processID}
}

// lookupHolders is taskHolders over a test's taskLookups.
type lookupHolders struct{ l taskLookups }

func (h lookupHolders) activeProcess(topic string, p int32) (string, bool) {
	return h.l.activeProcess(topic, p)
}

func (h lookupHolders) onProcess(r taskRole, topic string, p int32, pr string) bool {
	holders := h.l.standby(topic, p)
	if r == roleWarmup {
		holders = h.l.warmup(topic, p)
	}
	for _, x := range holders {
		if x == pr {
			return true
		}
	}
	return false
}

func streamsBuilder(member memberAssignment, targetEpoch int32, target taskSets, l taskLookups, owned *taskSets) currentAssignmentBuilder {
	u := l.predicates(process).(*streamsUnreleasedTasks)
	u.own = &member.assigned
	b := currentAssignmentBuilder{member: member, targetEpoch: targetEpoch, target: target,
		unreleased: u, advanceOnRevocation: true, streams: true}
	if owned != nil {
		b.owned, b.ownedSent = *owned, true
	}
	return b
}

var taskRoles = [...]struct {
	name string
	role taskRole
}{{"ACTIVE", roleActive}, {"STANDBY", roleStandby}, {"WARMUP", roleWarmup}}

// TestStreamsCurrentAssignmentBuilder reproduces Kafka's streams
// CurrentAssignmentBuilderTest: each case, run for every task role as Kafka
// parameterizes it, starts from a member, a target and the group's owner
// lookups, and checks the single step the builder takes.
func TestStreamsCurrentAssignmentBuilder(t *testing.T) {
	type tc struct {
		name        string
		member      func(r taskRole) memberAssignment
		targetEpoch int32
		target      func(r taskRole) taskSets
		lookups     func(r taskRole) taskLookups
		owned       func(r taskRole) *taskSets // nil: not sent
		want        func(r taskRole) memberAssignment
	}
	ts := func(r taskRole, a1, a2 []int32) taskSets {
		var x []TopicPartitions
		if len(a1) > 0 {
			x = append(x, tps(sub1, a1...))
		}
		if len(a2) > 0 {
			x = append(x, tps(sub2, a2...))
		}
		return inRole(r, x...)
	}
	p := func(xs ...int32) []int32 { return xs }
	owned := func(x taskSets) *taskSets { return &x }
	noOwners := func(taskRole) taskLookups { return taskLookups{} }
	selfOwns := func(taskRole) taskLookups { return taskLookups{activeProcess: ownedByProcess(process)} }
	cases := []tc{
		{
			name: "testStableToStable",
			member: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberStable, epoch: 10, previousEpoch: 10, assigned: ts(r, p(1, 2), p(3, 4))}
			},
			target: func(r taskRole) taskSets { return ts(r, p(1, 2), p(3, 4)) }, targetEpoch: 11, lookups: selfOwns,
			want: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberStable, epoch: 11, previousEpoch: 10, assigned: ts(r, p(1, 2), p(3, 4))}
			},
		},
		{
			name: "testStableToStableWithNewTasks",
			member: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberStable, epoch: 10, previousEpoch: 10, assigned: ts(r, p(1, 2), p(3, 4))}
			},
			target: func(r taskRole) taskSets { return ts(r, p(1, 2, 4), p(3, 4, 7)) }, targetEpoch: 11, lookups: noOwners,
			want: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberStable, epoch: 11, previousEpoch: 10, assigned: ts(r, p(1, 2, 4), p(3, 4, 7))}
			},
		},
		{
			name: "testStableToUnrevokedTasks",
			member: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberStable, epoch: 10, previousEpoch: 10, assigned: ts(r, p(1, 2), p(3, 4))}
			},
			target: func(r taskRole) taskSets { return ts(r, p(2, 3), p(4, 5)) }, targetEpoch: 11, lookups: noOwners,
			want: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberUnrevokedPartitions, epoch: 10, previousEpoch: 10, assigned: ts(r, p(2), p(4)), pending: ts(r, p(1), p(3))}
			},
		},
		{
			name: "testStableToUnrevokedWithEmptyAssignment",
			member: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberStable, epoch: 10, previousEpoch: 10, assigned: ts(r, p(1, 2), p(3, 4))}
			},
			target: func(taskRole) taskSets { return taskSets{} }, targetEpoch: 11, lookups: selfOwns,
			want: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberUnrevokedPartitions, epoch: 10, previousEpoch: 10, pending: ts(r, p(1, 2), p(3, 4))}
			},
		},
		{
			name: "testStableToUnreleasedTasks",
			member: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberStable, epoch: 10, previousEpoch: 10, assigned: ts(r, p(1, 2), p(3, 4))}
			},
			target: func(r taskRole) taskSets { return ts(r, p(1, 2, 4), p(3, 4, 7)) }, targetEpoch: 11, lookups: selfOwns,
			want: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberUnreleasedPartitions, epoch: 11, previousEpoch: 10, assigned: ts(r, p(1, 2), p(3, 4))}
			},
		},
		{
			name: "testStableToUnreleasedTasksWithOwnedTasksNotHavingRevokedTasks",
			member: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberStable, epoch: 10, previousEpoch: 10, assigned: ts(r, p(1, 2), p(3, 4))}
			},
			target: func(r taskRole) taskSets { return ts(r, p(1, 2), p(3, 5)) }, targetEpoch: 11,
			lookups: func(taskRole) taskLookups {
				return taskLookups{activeProcess: func(topic string, _ int32) (string, bool) { return process, topic == sub2 }}
			},
			owned: func(taskRole) *taskSets { return owned(taskSets{}) },
			want: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberUnreleasedPartitions, epoch: 11, previousEpoch: 10, assigned: ts(r, p(1, 2), p(3))}
			},
		},
		{
			name: "testUnrevokedTasksToStable",
			member: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberUnrevokedPartitions, epoch: 10, previousEpoch: 10, assigned: ts(r, p(2, 3), p(5, 6)), pending: ts(r, p(1), p(4))}
			},
			target: func(r taskRole) taskSets { return ts(r, p(2, 3), p(5, 6)) }, targetEpoch: 11, lookups: noOwners,
			owned: func(r taskRole) *taskSets { return owned(ts(r, p(2, 3), p(5, 6))) },
			want: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberStable, epoch: 11, previousEpoch: 10, assigned: ts(r, p(2, 3), p(5, 6))}
			},
		},
		{
			name: "testUnrevokedTasksToUnrevokedTasks",
			member: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberUnrevokedPartitions, epoch: 10, previousEpoch: 10, assigned: ts(r, p(2, 3), p(5, 6)), pending: ts(r, p(1), p(4))}
			},
			target: func(r taskRole) taskSets { return ts(r, p(3), p(6)) }, targetEpoch: 12, lookups: noOwners,
			owned: func(r taskRole) *taskSets { return owned(ts(r, p(2, 3), p(5, 6))) },
			// The revocation was acknowledged: the member moves to epoch
			// + 1 and is asked to revoke the next tasks there.
			want: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberUnrevokedPartitions, epoch: 11, previousEpoch: 10, assigned: ts(r, p(3), p(6)), pending: ts(r, p(2), p(5))}
			},
		},
		{
			name: "testUnrevokedTasksToUnreleasedTasks",
			member: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberUnrevokedPartitions, epoch: 11, previousEpoch: 10, assigned: ts(r, p(2, 3), p(5, 6)), pending: ts(r, p(1), p(4))}
			},
			target: func(r taskRole) taskSets { return ts(r, p(2, 3, 4), p(5, 6, 7)) }, targetEpoch: 11, lookups: selfOwns,
			owned: func(r taskRole) *taskSets { return owned(ts(r, p(2, 3), p(5, 6))) },
			want: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberUnreleasedPartitions, epoch: 11, previousEpoch: 11, assigned: ts(r, p(2, 3), p(5, 6))}
			},
		},
		{
			name: "testUnreleasedTasksToStable",
			member: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberUnreleasedPartitions, epoch: 11, previousEpoch: 11, assigned: ts(r, p(2, 3), p(5, 6))}
			},
			target: func(r taskRole) taskSets { return ts(r, p(2, 3), p(5, 6)) }, targetEpoch: 12,
			lookups: func(taskRole) taskLookups {
				return taskLookups{activeProcess: ownedByProcess(process), standby: onThisProcess, warmup: onThisProcess}
			},
			want: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberStable, epoch: 12, previousEpoch: 11, assigned: ts(r, p(2, 3), p(5, 6))}
			},
		},
		{
			name: "testUnreleasedTasksToStableWithNewTasks",
			member: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberUnreleasedPartitions, epoch: 11, previousEpoch: 11, assigned: ts(r, p(2, 3), p(5, 6))}
			},
			target: func(r taskRole) taskSets { return ts(r, p(2, 3, 4), p(5, 6, 7)) }, targetEpoch: 11, lookups: noOwners,
			want: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberStable, epoch: 11, previousEpoch: 11, assigned: ts(r, p(2, 3, 4), p(5, 6, 7))}
			},
		},
		{
			name: "testUnreleasedTasksToUnreleasedTasks",
			member: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberUnreleasedPartitions, epoch: 11, previousEpoch: 11, assigned: ts(r, p(2, 3), p(5, 6))}
			},
			target: func(r taskRole) taskSets { return ts(r, p(2, 3, 4), p(5, 6, 7)) }, targetEpoch: 11,
			lookups: func(taskRole) taskLookups {
				return taskLookups{activeProcess: ownedByProcess(process), standby: onThisProcess, warmup: onThisProcess}
			},
			want: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberUnreleasedPartitions, epoch: 11, previousEpoch: 11, assigned: ts(r, p(2, 3), p(5, 6))}
			},
		},
		{
			// The unreleased task is held in a different role on the same
			// process.
			name: "testUnreleasedTasksToUnreleasedTasksOtherUnreleasedTaskRole",
			member: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberUnreleasedPartitions, epoch: 11, previousEpoch: 11, assigned: ts(r, p(2, 3), p(5, 6))}
			},
			target: func(r taskRole) taskSets { return ts(r, p(2, 3, 4), p(5, 6, 7)) }, targetEpoch: 11,
			lookups: func(r taskRole) taskLookups {
				if r == roleStandby {
					return taskLookups{warmup: onThisProcess}
				}
				return taskLookups{standby: onThisProcess}
			},
			want: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberUnreleasedPartitions, epoch: 11, previousEpoch: 11, assigned: ts(r, p(2, 3), p(5, 6))}
			},
		},
		{
			name: "testUnreleasedTasksToUnrevokedTasks",
			member: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberUnreleasedPartitions, epoch: 11, previousEpoch: 11, assigned: ts(r, p(2, 3), p(5, 6)), pending: ts(r, p(4), p(7))}
			},
			target: func(r taskRole) taskSets { return ts(r, p(3), p(6)) }, targetEpoch: 12, lookups: selfOwns,
			want: func(r taskRole) memberAssignment {
				return memberAssignment{state: MemberUnrevokedPartitions, epoch: 11, previousEpoch: 11, assigned: ts(r, p(3), p(6)), pending: ts(r, p(2), p(5))}
			},
		},
	}
	for _, c := range cases {
		for _, role := range taskRoles {
			t.Run(c.name+"/"+role.name, func(t *testing.T) {
				var o *taskSets
				if c.owned != nil {
					o = c.owned(role.role)
				}
				b := streamsBuilder(c.member(role.role), c.targetEpoch, c.target(role.role), c.lookups(role.role), o)
				got, err := b.build()
				require.NoError(t, err)
				want := c.want(role.role)
				assert.True(t, got.equal(&want), "got  %+v\nwant %+v", got, want)
			})
		}
	}
}

// TestStreamsCurrentAssignmentBuilder_RemainsInUnrevokedTasks is Kafka's
// testRemainsInUnrevokedTasks: without owned tasks, or with owned tasks
// that still list a revoked task, the member does not move.
func TestStreamsCurrentAssignmentBuilder_RemainsInUnrevokedTasks(t *testing.T) {
	for _, role := range taskRoles {
		r := role.role
		member := memberAssignment{state: MemberUnrevokedPartitions, epoch: 10, previousEpoch: 10,
			assigned: inRole(r, tps(sub1, 2, 3), tps(sub2, 5, 6)), pending: inRole(r, tps(sub1, 1), tps(sub2, 4))}
		target := inRole(r, tps(sub1, 3), tps(sub2, 6))
		for _, o := range []*taskSets{nil, ptr(inRole(r, tps(sub1, 1, 2, 3), tps(sub2, 5, 6))), ptr(inRole(r, tps(sub1, 2, 3), tps(sub2, 4, 5, 6)))} {
			b := streamsBuilder(member, 12, target, taskLookups{}, o)
			got, err := b.build()
			require.NoError(t, err)
			assert.True(t, got.equal(&member), "%s: got %+v", role.name, got)
		}
	}
}

// TestStreamsCurrentAssignmentBuilder_UnreleasedTasksToUnreleasedTasksAnyActiveOwner
// is Kafka's testUnreleasedTasksToUnreleasedTasksAnyActiveOwner: an active
// task owned by any other process stays withheld; a free one is assigned.
func TestStreamsCurrentAssignmentBuilder_UnreleasedTasksToUnreleasedTasksAnyActiveOwner(t *testing.T) {
	member := memberAssignment{state: MemberUnreleasedPartitions, epoch: 11, previousEpoch: 11,
		assigned: inRole(roleActive, tps(sub1, 2, 3), tps(sub2, 5, 6))}
	l := taskLookups{activeProcess: func(topic string, p int32) (string, bool) {
		return "anyOtherProcess", topic == sub1 && p == 4
	}}
	b := streamsBuilder(member, 11, inRole(roleActive, tps(sub1, 2, 3, 4), tps(sub2, 5, 6, 7)), l, nil)
	got, err := b.build()
	require.NoError(t, err)
	want := memberAssignment{state: MemberUnreleasedPartitions, epoch: 11, previousEpoch: 11,
		assigned: inRole(roleActive, tps(sub1, 2, 3), tps(sub2, 5, 6, 7))}
	assert.True(t, got.equal(&want), "got %+v", got)
}

// TestStreamsCurrentAssignmentBuilder_UnknownState is Kafka's
// testUnknownState: a member in a state this version does not know is
// fenced until it rejoins owning nothing, then reconciled from scratch.
func TestStreamsCurrentAssignmentBuilder_UnknownState(t *testing.T) {
	for _, role := range taskRoles {
		r := role.role
		member := memberAssignment{state: MemberUnknown, epoch: 11, previousEpoch: 11,
			assigned: inRole(r, tps(sub1, 3), tps(sub2, 6)), pending: inRole(r, tps(sub1, 2), tps(sub2, 5))}
		target := inRole(r, tps(sub1, 3), tps(sub2, 6))
		b := streamsBuilder(member, 12, target, taskLookups{activeProcess: ownedByProcess(process)}, nil)
		_, err := b.build()
		require.ErrorIs(t, err, errUnknownMemberState{streams: true})
		assert.Contains(t, err.Error(), "The streams group member is in a unknown state")

		b = streamsBuilder(member, 12, target, taskLookups{activeProcess: ownedByProcess(process)}, ptr(taskSets{}))
		got, err := b.build()
		require.NoError(t, err)
		want := memberAssignment{state: MemberStable, epoch: 12, previousEpoch: 11, assigned: target}
		assert.True(t, got.equal(&want), "%s: got %+v", role.name, got)
	}
}

// TestStreamsCurrentAssignmentBuilder_ActiveWithheldWhileProcessHoldsStandby
// proves the cross-role rule of Kafka's active-task predicate: an active task
// is withheld while another member of its process still runs it as a
// standby or warm-up, even when no member owns it active.
func TestStreamsCurrentAssignmentBuilder_ActiveWithheldWhileProcessHoldsStandby(t *testing.T) {
	member := memberAssignment{state: MemberStable, epoch: 10, previousEpoch: 10}
	for _, l := range []taskLookups{{standby: onThisProcess}, {warmup: onThisProcess}} {
		b := streamsBuilder(member, 11, inRole(roleActive, tps(sub1, 0)), l, nil)
		got, err := b.build()
		require.NoError(t, err)
		want := memberAssignment{state: MemberUnreleasedPartitions, epoch: 11, previousEpoch: 10}
		assert.True(t, got.equal(&want), "got %+v", got)
	}
	// A standby on another process does not withhold it.
	b := streamsBuilder(member, 11, inRole(roleActive, tps(sub1, 0)),
		taskLookups{standby: func(string, int32) []string { return []string{"other"} }}, nil)
	got, err := b.build()
	require.NoError(t, err)
	want := memberAssignment{state: MemberStable, epoch: 11, previousEpoch: 10, assigned: inRole(roleActive, tps(sub1, 0))}
	assert.True(t, got.equal(&want), "got %+v", got)
}

// TestStreamsCurrentAssignmentBuilder_ConvertsRolesInPlace covers the role
// conversions of Kafka 4.4's streams computeNextAssignment: a task the member
// keeps changes role in place (demoteActiveTasksToStandby,
// convertReplicaRole, applyPromotionsToActive), and the predicates no longer
// withhold a task the member itself holds in another role, but for a
// warm-up of a task it runs active, which Kafka does not convert.
func TestStreamsCurrentAssignmentBuilder_ConvertsRolesInPlace(t *testing.T) {
	type roles struct{ active, standby, warmup []TopicPartitions }
	sets := func(r roles) taskSets { return taskSets{r.active, r.standby, r.warmup} }
	one := func(p int32) []TopicPartitions { return asg(tps(sub1, p)) }
	both := asg(tps(sub1, 0, 1))
	owner := func(pr string) taskLookups {
		return taskLookups{activeProcess: func(_ string, p int32) (string, bool) { return pr, p == 1 && pr != "" }}
	}
	cases := []struct {
		name    string
		member  roles
		target  roles
		lookups taskLookups
		owned   *roles // nil: not sent
		want    memberAssignment
	}{
		{
			// The active task goes on being revoked, its standby is granted
			// at once: the member holds both until it acknowledges.
			name:   "active demoted to standby while revoked",
			member: roles{active: both}, target: roles{active: one(0), standby: one(1)},
			lookups: owner(process), owned: &roles{active: both},
			want: memberAssignment{state: MemberUnrevokedPartitions, epoch: 10, previousEpoch: 10,
				assigned: sets(roles{active: one(0), standby: one(1)}), pending: sets(roles{active: one(1)})},
		},
		{
			name:   "standby becomes a warm-up at once",
			member: roles{standby: one(1)}, target: roles{warmup: one(1)},
			lookups: taskLookups{standby: onThisProcess},
			want:    memberAssignment{state: MemberStable, epoch: 11, previousEpoch: 10, assigned: sets(roles{warmup: one(1)})},
		},
		{
			name:   "warm-up becomes a standby at once",
			member: roles{warmup: one(1)}, target: roles{standby: one(1)},
			lookups: taskLookups{warmup: onThisProcess},
			want:    memberAssignment{state: MemberStable, epoch: 11, previousEpoch: 10, assigned: sets(roles{standby: one(1)})},
		},
		{
			name:   "standby promoted when nothing is left to revoke",
			member: roles{standby: one(1)}, target: roles{active: one(1)},
			lookups: taskLookups{standby: onThisProcess},
			want:    memberAssignment{state: MemberStable, epoch: 11, previousEpoch: 10, assigned: sets(roles{active: one(1)})},
		},
		{
			// The standby is neither revoked nor promoted yet: it stays a
			// standby until the revocation is acknowledged.
			name:   "standby kept while another task is revoked",
			member: roles{active: one(0), standby: one(1)}, target: roles{active: one(1)},
			lookups: taskLookups{activeProcess: ownedByProcess(process), standby: onThisProcess}, owned: &roles{active: one(0)},
			want: memberAssignment{state: MemberUnrevokedPartitions, epoch: 10, previousEpoch: 10,
				assigned: sets(roles{standby: one(1)}), pending: sets(roles{active: one(0)})},
		},
		{
			name:   "warm-up kept while another member runs the task",
			member: roles{warmup: one(1)}, target: roles{active: one(1)},
			lookups: owner("other"),
			want:    memberAssignment{state: MemberUnreleasedPartitions, epoch: 11, previousEpoch: 10, assigned: sets(roles{warmup: one(1)})},
		},
		{
			name:   "standby withheld while another member of the process runs the task",
			member: roles{}, target: roles{standby: one(1)},
			lookups: owner(process),
			want:    memberAssignment{state: MemberUnreleasedPartitions, epoch: 11, previousEpoch: 10},
		},
		{
			// Kafka has no active-to-warm-up conversion: the warm-up waits
			// until the member's own active task is released.
			name:   "warm-up withheld while the member runs the task",
			member: roles{active: both}, target: roles{active: one(0), warmup: one(1)},
			lookups: owner(process), owned: &roles{active: one(0)},
			want: memberAssignment{state: MemberUnreleasedPartitions, epoch: 11, previousEpoch: 10, assigned: sets(roles{active: one(0)})},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			member := memberAssignment{state: MemberStable, epoch: 10, previousEpoch: 10, assigned: sets(c.member)}
			var owned *taskSets
			if c.owned != nil {
				o := sets(*c.owned)
				owned = &o
			}
			b := streamsBuilder(member, 11, sets(c.target), c.lookups, owned)
			got, err := b.build()
			require.NoError(t, err)
			assert.True(t, got.equal(&c.want), "got %+v\nwant %+v", got, c.want)
		})
	}
}

// TestStreamsNoActiveTaskHasTwoOwners is the property behind KIP-1071's
// reconciliation, over many seeds, checked on the clients as Kafka's
// guarantee is stated: members join, leave, and heartbeat; a client runs a
// task from the response that gives it until it has revoked it, and
// revokes a task it lost only at a later heartbeat (or never, until a
// timeout fences it), reporting what it runs as its owned tasks. After
// every operation no active task is run by two members of the group, and
// the shard rebuilt from its log equals the live one at the end. With
// mutant.SkipTaskRevocation planted the property fails (checked below).
func TestStreamsNoActiveTaskHasTwoOwners(t *testing.T) {
	seeds := 200
	if testing.Short() {
		seeds = 40
	}
	for seed := range seeds {
		if v := streamsOwnerViolation(t, testConfig(), uint64(seed)); v != "" {
			t.Fatalf("seed %d: %s", seed, v)
		}
	}
	cfg := testConfig()
	cfg.Mutants.SkipTaskRevocation = true
	caught := false
	for seed := range 20 {
		if streamsOwnerViolation(t, cfg, uint64(seed)) != "" {
			caught = true
			break
		}
	}
	assert.True(t, caught, "the property must catch a coordinator that skips the task revocation")
}

// streamsOwnerViolation runs one seed and returns the first violation of
// the one-owner property, or "".
func streamsOwnerViolation(t *testing.T, cfg Config, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 7))
	h := newHarness(t, cfg, map[string]int32{"in": 8, "in2": 3})
	type client struct {
		epoch int32
		runs  []TopicPartitions // the active tasks it runs
		next  []TopicPartitions // its latest assignment
	}
	clients := map[string]*client{}
	var live []string
	drop := func(id string) {
		delete(clients, id)
		live = slices.DeleteFunc(live, func(x string) bool { return x == id })
	}
	topology := &Topology{Epoch: 1, Subtopologies: []Subtopology{{ID: "a", SourceTopics: []string{"in"}}, {ID: "b", SourceTopics: []string{"in2"}}}}
	for op := 0; op < 150; op++ {
		switch k := rng.IntN(10); {
		case k == 0 || len(live) == 0:
			id := fmt.Sprintf("m%d", rng.IntN(6))
			if clients[id] != nil {
				break
			}
			res, err := h.s.StreamsGroupHeartbeat(h.nowMs, StreamsGroupHeartbeatRequest{GroupID: "g", MemberID: id,
				ProcessID: "p" + id[1:], RebalanceTimeoutMs: 5_000, Version: 1, Topology: topology})
			r := mustApply(h, res, err)
			c := &client{epoch: r.MemberEpoch, next: tasksToPartitions(r.ActiveTasks)}
			c.runs = c.next
			clients[id] = c
			live = append(live, id)
		case k == 1:
			id := live[rng.IntN(len(live))]
			res, err := h.s.StreamsGroupHeartbeat(h.nowMs, StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "g", MemberID: id, MemberEpoch: -1, Version: 1})
			if err == nil {
				applyResult(h, res)
			}
			drop(id)
		case k == 2:
			h.advance(h.nowMs + int64(rng.IntN(8_000)))
		default:
			id := live[rng.IntN(len(live))]
			c := clients[id]
			if rng.IntN(4) > 0 {
				// The revocation callback finished: it runs only its assignment.
				c.runs = c.next
			}
			req := StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "g", MemberID: id, MemberEpoch: c.epoch, Version: 1,
				ActiveTasks: partitionsToTasks(c.runs), StandbyTasks: []TaskIDs{}, WarmupTasks: []TaskIDs{}}
			if req.ActiveTasks == nil {
				req.ActiveTasks = []TaskIDs{}
			}
			res, err := h.s.StreamsGroupHeartbeat(h.nowMs, req)
			if err != nil {
				drop(id) // fenced: it stops its tasks and leaves the run
				continue
			}
			r := applyResult(h, res)
			c.epoch = r.MemberEpoch
			if r.HasAssignment {
				c.next = tasksToPartitions(r.ActiveTasks)
				// It starts what it gained at once; what it lost it
				// keeps running until its revocation completes.
				c.runs = mergeAssignments(c.runs, c.next)
			}
		}
		holder := map[topicPartition]string{}
		for _, id := range slices.Sorted(maps.Keys(clients)) {
			if !h.s.HasMember("g", id) {
				continue // a zombie the coordinator already fenced
			}
			for _, tp := range clients[id].runs {
				for _, p := range tp.Partitions {
					k := topicPartition{tp.Topic, p}
					if other, ok := holder[k]; ok {
						return fmt.Sprintf("op %d: task %s_%d run by %s and %s", op, tp.Topic, p, other, id)
					}
					holder[k] = id
				}
			}
		}
	}
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
	return ""
}
