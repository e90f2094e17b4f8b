package sim

import (
	"fmt"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/sim/invariants"
)

// Standby tasks (KIP-1071). A share of the streams apps (Workload.StandbyProb)
// run with streams.num.standby.replicas 1 or 2, set as the group's config on
// every coordinator before the app starts, as an operator's
// IncrementalAlterConfigs would (Kafka's group configs reach every broker
// through the metadata image). Kafka's StickyTaskAssignor gives standby
// copies of stateful tasks only, so they reach the apps whose topology has
// a state store (streams_topology.go). Which apps, how many replicas and threads
// follow from the seed and the app's index through a hash, not a draw from
// the run's random stream, so every other choice of a run stays as it was.
//
// Half the apps with standbys run two stream threads per instance: each
// thread is a member, and the two share the instance's process id, as a
// KafkaStreams client with num.stream.threads=2 does. That is what makes
// Kafka's per-process rules matter: the assignor never puts a standby on
// the process running the task, and the reconciliation withholds a task
// from a member while another member of its process still holds it in
// another role. A thread that dies is replaced by a new thread of the next
// instance (members m0 and m1 are process p0, m2 and m3 p1, ...).
//
// The simulated instance reconciles its standby and warm-up tasks as Kafka
// Streams does (StreamsMembershipManager): a standby the new assignment no
// longer lists is closed at once, the rest are reported as owned in the
// next heartbeat; an active task it held as a standby is a promotion (its
// state is already restored).

// InvStandbyApart is the rule Kafka's task assignment keeps for one
// process: its members never hold two copies of one task, active and
// standby, active and warm-up, or two standbys (StickyTaskAssignor places
// a standby only on a process without the task; CurrentAssignmentBuilder
// withholds a task from a member while its process still holds it in
// another role). Checked on the clients after every assignment they apply;
// as for 9-one-owner, a crashed client holds nothing and a client the
// coordinator already fenced is not counted, the checked one included: a
// thread fenced by its rebalance timeout while its revocation hangs finishes
// revoking before its next heartbeat tells it, and by then its process mate
// may rightly hold its old active task as a standby (Kafka's predicates read
// only current members; Kafka Streams keeps the zombie and its mate apart
// with the task's state-directory lock, not through the coordinator).
const InvStandbyApart = invariants.StandbyApart

// standbyReplicasFor returns the streams.num.standby.replicas of the i-th
// streams app: 0 (no group config) for a share 1-prob of the apps, else 1
// or 2.
func standbyReplicasFor(seed uint64, i int, prob float64) int32 {
	if prob <= 0 {
		return 0
	}
	h := splitmix64(seed ^ splitmix64(uint64(i)+0x5bd1e995))
	if float64(h>>11)/(1<<53) >= prob {
		return 0
	}
	return 1 + int32(h&1)
}

// twoThreadsFor reports whether the i-th streams app runs two stream
// threads per instance (half the apps with standbys).
func twoThreadsFor(seed uint64, i int) bool {
	return splitmix64(seed^splitmix64(uint64(i)+0x5bd1e995))&2 != 0
}

// processOf returns the process id of a new member of the app.
func processOf(g *simGroup, member int) string {
	if !g.twoThreads {
		return fmt.Sprintf("m%d", member)
	}
	return fmt.Sprintf("p%d", member/2)
}

// splitmix64 is Vigna's SplitMix64 finaliser: a well-mixed hash of x.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// configureStandbys sets the app's streams.num.standby.replicas on every
// coordinator. A coordinator that refuses (its group-config table is full)
// leaves the app without standbys on every broker.
func (w *world) configureStandbys(g *simGroup, i int) {
	n := standbyReplicasFor(w.opts.Seed, i, w.opts.Workload.StandbyProb)
	if g.typ != shard.Streams || n == 0 {
		return
	}
	for bi, b := range w.brokers {
		if err := b.c.SetStreamsGroupConfig(g.id, coordinator.StreamsGroupConfig{NumStandbyReplicas: &n}); err != nil {
			for _, u := range w.brokers[:bi] {
				_ = u.c.SetStreamsGroupConfig(g.id, coordinator.StreamsGroupConfig{})
			}
			return
		}
	}
	g.standbys = n
	g.twoThreads = twoThreadsFor(w.opts.Seed, i)
}

// onStandbyAssignment applies a streams assignment's standby and warm-up
// tasks to the instance, marks what it reached, and checks
// InvStandbyApart.
func (w *world) onStandbyAssignment(m *simMember, standby, warmup []shard.TaskIDs) {
	if len(standby) > 0 {
		w.mark("standby-assigned")
		if m.wasStandby == nil {
			m.wasStandby = map[taskKey]bool{}
		}
		for _, t := range standby {
			for _, p := range t.Partitions {
				m.wasStandby[taskKey{t.SubtopologyID, p}] = true
			}
		}
	}
	if len(warmup) > 0 {
		w.mark("warmup-assigned")
	}
	m.standby, m.warmup = standby, warmup
}

// taskKey names one task: subtopology and partition.
type taskKey struct {
	sub string
	p   int32
}

// onActiveTaken marks an instance taking, as an active task, one it held as
// a standby: Kafka's assignor prefers the previous standby holder for a
// task whose active owner left.
func (w *world) onActiveTaken(m *simMember, added []shard.TopicPartitions) {
	for _, tp := range added {
		for _, p := range tp.Partitions {
			if k := (taskKey{tp.Topic, p}); m.wasStandby[k] {
				delete(m.wasStandby, k)
				w.mark("standby-promoted")
			}
		}
	}
}

// checkStandbyApart checks InvStandbyApart for the process of instance m:
// the tasks its live members hold (active ones being revoked included)
// never repeat across members in two roles, nor as two standbys or two
// warm-ups. One member may hold a task in two roles while it converts it.
func (w *world) checkStandbyApart(m *simMember) {
	if m.g.typ != shard.Streams || len(m.standby)+len(m.warmup) == 0 && !m.g.twoThreads {
		return
	}
	type holding struct {
		member, role string
	}
	seen := map[taskKey]holding{}
	for _, o := range m.g.members {
		if o.process != m.process || o.gone || !w.isMember(m.g.id, o.id) {
			continue
		}
		roles := []struct {
			name  string
			tasks []shard.TopicPartitions
		}{{"active", o.assigned}, {"standby", tasksAsPartitions(o.standby)}, {"warm-up", tasksAsPartitions(o.warmup)}}
		for _, r := range roles {
			for _, tp := range r.tasks {
				for _, p := range tp.Partitions {
					k := taskKey{tp.Topic, p}
					prev, dup := seen[k]
					if !dup {
						seen[k] = holding{o.id, r.name}
						continue
					}
					if prev.role == "active" && r.name == "active" {
						continue // two active owners: 9-one-owner's to report
					}
					if prev.member == o.id {
						// One member holding a task in two roles is a
						// conversion in place (Kafka 4.4 grants an active
						// task's demotion to a standby before the active one
						// is revoked; Kafka Streams recycles the task): one
						// copy of its state.
						continue
					}
					w.violate(InvStandbyApart, fmt.Sprintf("group %s: process %s holds task %s_%d as %s on %s and as %s on %s",
						m.g.id, m.process, tp.Topic, p, prev.role, prev.member, r.name, o.id))
					return
				}
			}
		}
	}
}
