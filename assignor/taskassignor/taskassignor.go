package taskassignor

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/coordsim/coordsim/assignor/javaorder"
	"github.com/coordsim/coordsim/kerr"
)

// TaskAssignor computes a streams group's target assignment: Kafka's
// TaskAssignor. Implementations must be deterministic and keep no state
// between calls; bad input gets an error and no assignment.
type TaskAssignor interface {
	// Name is the assignor's name ("sticky").
	Name() string
	// Assign returns the target assignment. It never modifies its inputs.
	Assign(spec *GroupSpec, topology TopologyDescriber) (GroupAssignment, error)
}

// StickyName is the name of Kafka's StickyTaskAssignor.
const StickyName = "sticky"

// Builtin returns the built-in task assignors; the first is the default.
func Builtin() []TaskAssignor { return []TaskAssignor{Sticky{}} }

// Lookup returns the built-in assignor called name.
func Lookup(name string) (TaskAssignor, bool) {
	for _, a := range Builtin() {
		if a.Name() == name {
			return a, true
		}
	}
	return nil, false
}

// Default returns the assignor a streams group uses: sticky, as in Kafka.
func Default() TaskAssignor { return Sticky{} }

// GroupSpec is the input of an assignment: Kafka's GroupSpec (the members and
// the assignment configs).
type GroupSpec struct {
	// Members of the group, in any order; ids must be unique.
	Members []AssignmentMemberSpec
	// NumStandbyReplicas is the group's num.standby.replicas, >= 0.
	NumStandbyReplicas int32
}

// AssignmentMemberSpec is one member as the assignor sees it: Kafka's
// AssignmentMemberSpec (MemberAssignmentMetadata and MemberAssignmentState in
// trunk's public API). Kafka's instance id, rack and client tags are left
// out: the sticky assignor does not read them.
type AssignmentMemberSpec struct {
	MemberID string
	// ProcessID is the member's process (one Kafka Streams instance); every
	// member must have one. Members of one process share its load.
	ProcessID string
	// ActiveTasks, StandbyTasks and WarmupTasks are the tasks the member
	// holds now (Kafka's StreamsGroupMember.assignedTasks), the base for
	// stickiness; WarmupTasks is not read (nor is it by Kafka 4.4). Tasks of
	// unknown subtopologies or beyond a subtopology's task count are
	// ignored; an active task may appear under one member only.
	ActiveTasks  []Tasks
	StandbyTasks []Tasks
	WarmupTasks  []Tasks
	// TaskOffsets are the offset sums the member reports for tasks whose
	// state it has on local disk (Kafka's taskOffsets); a member holding no
	// standby or warm-up for such a task becomes a weaker standby candidate
	// for it. Optional.
	TaskOffsets []TaskOffset
}

// Tasks is one subtopology and some of its partitions (task ids).
type Tasks struct {
	SubtopologyID string
	Partitions    []int32
}

// TaskOffset is a member's reported offset sum for one task.
type TaskOffset struct {
	SubtopologyID string
	Partition     int32
	OffsetSum     int64
}

// TopologyDescriber is what an assignor may ask about the topology: Kafka's
// TopologyDescriber.
type TopologyDescriber interface {
	// Subtopologies returns the subtopology ids.
	Subtopologies() []string
	// MaxNumInputPartitions returns the number of tasks of a subtopology,
	// the largest partition count of its source topics; an error for an
	// unknown id.
	MaxNumInputPartitions(subtopologyID string) (int32, error)
	// IsStateful reports whether the subtopology has state (changelog)
	// topics, so its tasks get standbys.
	IsStateful(subtopologyID string) bool
}

// Subtopology is one subtopology of a Topology.
type Subtopology struct {
	ID       string
	NumTasks int32
	Stateful bool
}

// Topology is a TopologyDescriber over a list of subtopologies.
type Topology []Subtopology

// Subtopologies implements TopologyDescriber.
func (t Topology) Subtopologies() []string {
	out := make([]string, len(t))
	for i, s := range t {
		out[i] = s.ID
	}
	return out
}

// MaxNumInputPartitions implements TopologyDescriber.
func (t Topology) MaxNumInputPartitions(id string) (int32, error) {
	if i := slices.IndexFunc(t, func(s Subtopology) bool { return s.ID == id }); i >= 0 {
		return t[i].NumTasks, nil
	}
	return 0, assignorError("unknown subtopology %s", id)
}

// IsStateful implements TopologyDescriber.
func (t Topology) IsStateful(id string) bool {
	i := slices.IndexFunc(t, func(s Subtopology) bool { return s.ID == id })
	return i >= 0 && t[i].Stateful
}

// GroupAssignment is an assignment result: one entry per member of the
// GroupSpec, sorted by member id, tasks sorted by subtopology id, partitions
// ascending. Kafka's GroupAssignment.
type GroupAssignment []MemberAssignment

// MemberAssignment is one member's target: Kafka's MemberAssignment. The
// sticky assignor never assigns warm-up tasks; WarmupTasks is there for
// assignors that do.
type MemberAssignment struct {
	MemberID     string
	ActiveTasks  []Tasks
	StandbyTasks []Tasks
	WarmupTasks  []Tasks
}

// Of returns the assignment of member id, and false when it is not in a.
func (a GroupAssignment) Of(id string) (MemberAssignment, bool) {
	i, ok := slices.BinarySearchFunc(a, id, func(m MemberAssignment, id string) int { return strings.Compare(m.MemberID, id) })
	if !ok {
		return MemberAssignment{}, false
	}
	return a[i], true
}

// assignorError is Kafka's TaskAssignorException as the coordinator reports
// it: an UNKNOWN_SERVER_ERROR with the assignor's message.
func assignorError(format string, args ...any) error {
	return kerr.UnknownServerError.WithMessage(format, args...)
}

// model is a validated input: subtopologies sorted by id (so a task's index
// order is (subtopology, partition) order), members sorted by id, processes
// sorted by id, previous tasks as task indices.
type model struct {
	subs     []Subtopology
	first    []int   // first task index of each subtopology
	subOf    []int32 // subtopology index of each task
	numTasks int
	members  []memberIn
	procs    []string
	standbys int
	// prevActive is the member index that held each task as active, -1 for
	// none.
	prevActive []int32
	// candidates lists, per task, the members that held it as standby or
	// warm-up or reported an offset for it, ranked as Kafka's
	// STANDBY_CANDIDATE_ORDER (nil when none).
	candidates [][]int32
}

type memberIn struct {
	id   string
	proc int
}

// taskID is Kafka's TaskId string, for messages.
func (m *model) taskID(task int) string {
	s := m.subOf[task]
	return fmt.Sprintf("%s_%d", m.subs[s].ID, task-m.first[s])
}

// task returns the task index of (subtopology, partition), false when the
// task is not in the topology.
func (m *model) task(subtopology string, partition int32) (int, bool) {
	s, ok := slices.BinarySearchFunc(m.subs, subtopology, func(x Subtopology, id string) int { return strings.Compare(x.ID, id) })
	if !ok || partition < 0 || partition >= m.subs[s].NumTasks {
		return 0, false
	}
	return m.first[s] + int(partition), true
}

// candidate is one standby candidate before ranking (Kafka's
// StandbyCandidate).
type candidate struct {
	member      int32
	prevStandby bool
	offsetSum   int64
}

func newModel(spec *GroupSpec, topology TopologyDescriber) (*model, error) {
	if spec == nil {
		return nil, assignorError("nil group spec")
	}
	if topology == nil {
		return nil, assignorError("nil topology describer")
	}
	if spec.NumStandbyReplicas < 0 {
		return nil, assignorError("num.standby.replicas is %d", spec.NumStandbyReplicas)
	}
	m := &model{standbys: int(spec.NumStandbyReplicas)}
	for _, id := range topology.Subtopologies() {
		if id == "" {
			return nil, assignorError("subtopology with an empty id")
		}
		n, err := topology.MaxNumInputPartitions(id)
		if err != nil {
			return nil, assignorError("subtopology %s: %v", id, err)
		}
		if n < 0 {
			return nil, assignorError("subtopology %s has %d tasks", id, n)
		}
		m.subs = append(m.subs, Subtopology{ID: id, NumTasks: n, Stateful: topology.IsStateful(id)})
	}
	slices.SortFunc(m.subs, func(a, b Subtopology) int { return strings.Compare(a.ID, b.ID) })
	m.first = make([]int, len(m.subs))
	for i, s := range m.subs {
		if i > 0 && m.subs[i-1].ID == s.ID {
			return nil, assignorError("subtopology %s appears twice", s.ID)
		}
		m.first[i] = m.numTasks
		m.numTasks += int(s.NumTasks)
	}
	m.subOf = make([]int32, 0, m.numTasks)
	for i, s := range m.subs {
		for range s.NumTasks {
			m.subOf = append(m.subOf, int32(i))
		}
	}

	members := make([]*AssignmentMemberSpec, len(spec.Members))
	for i := range spec.Members {
		members[i] = &spec.Members[i]
	}
	slices.SortFunc(members, func(a, b *AssignmentMemberSpec) int { return strings.Compare(a.MemberID, b.MemberID) })
	m.procs = make([]string, 0, len(members))
	for i, x := range members {
		if x.MemberID == "" {
			return nil, assignorError("member with an empty id")
		}
		if i > 0 && members[i-1].MemberID == x.MemberID {
			return nil, assignorError("member %s appears twice", x.MemberID)
		}
		if x.ProcessID == "" {
			return nil, assignorError("member %s has no process id", x.MemberID)
		}
		m.procs = append(m.procs, x.ProcessID)
	}
	slices.Sort(m.procs)
	m.procs = slices.Compact(m.procs)

	m.members = make([]memberIn, len(members))
	m.prevActive = make([]int32, m.numTasks)
	for t := range m.prevActive {
		m.prevActive[t] = -1
	}
	var cands [][]candidate // per task; allocated on first use
	add := func(task int, c candidate) {
		if cands == nil {
			cands = make([][]candidate, m.numTasks)
		}
		cands[task] = append(cands[task], c)
	}
	ids := make([]string, len(members))
	for i, x := range members {
		p, _ := slices.BinarySearch(m.procs, x.ProcessID)
		m.members[i] = memberIn{id: x.MemberID, proc: p}
		ids[i] = x.MemberID
	}
	// Kafka's initialize visits GroupSpec.memberIds, a HashMap's key set:
	// its order ranks standby candidates that tie.
	for _, i := range javaorder.PutOrder(ids) {
		x := members[i]
		for _, ts := range x.ActiveTasks {
			for _, part := range ts.Partitions {
				t, ok := m.task(ts.SubtopologyID, part)
				if !ok {
					continue // the topology no longer has it
				}
				if o := m.prevActive[t]; o >= 0 && int(o) != i {
					return nil, assignorError("active task %s is in the assignments of both %s and %s", m.taskID(t), members[o].MemberID, x.MemberID)
				}
				m.prevActive[t] = int32(i)
			}
		}
		// Kafka's collectStandbyCandidates: standbys (current holders,
		// with the offset sum they report, 0 when none), then tasks the
		// member reports an offset for but does not hold as standby.
		// Kafka 4.4 does not read warm-ups here.
		var offs map[int]int64 // looked up only; the last report of a task wins
		var reported []int     // tasks with a report, ascending
		for _, o := range x.TaskOffsets {
			t, ok := m.task(o.SubtopologyID, o.Partition)
			if !ok {
				continue
			}
			if offs == nil {
				offs = map[int]int64{}
			}
			if _, dup := offs[t]; !dup {
				reported = append(reported, t)
			}
			offs[t] = o.OffsetSum
		}
		slices.Sort(reported)
		var held map[int]bool // looked up only
		for _, ts := range x.StandbyTasks {
			for _, part := range ts.Partitions {
				t, ok := m.task(ts.SubtopologyID, part)
				if !ok || held[t] {
					continue
				}
				add(t, candidate{member: int32(i), prevStandby: true, offsetSum: offs[t]})
				if held == nil {
					held = map[int]bool{}
				}
				held[t] = true
			}
		}
		for _, t := range reported {
			if !held[t] {
				add(t, candidate{member: int32(i), prevStandby: false, offsetSum: offs[t]})
			}
		}
	}
	if cands != nil {
		m.candidates = make([][]int32, m.numTasks)
		for t, cs := range cands {
			if len(cs) == 0 {
				continue
			}
			// Kafka's STANDBY_CANDIDATE_ORDER with a stable sort: current
			// standbys and warm-ups first, then the most caught-up.
			slices.SortStableFunc(cs, func(a, b candidate) int {
				if a.prevStandby != b.prevStandby {
					if a.prevStandby {
						return -1
					}
					return 1
				}
				return cmp.Compare(b.offsetSum, a.offsetSum)
			})
			out := make([]int32, len(cs))
			for k, c := range cs {
				out[k] = c.member
			}
			m.candidates[t] = out
		}
	}
	return m, nil
}
