package taskassignor

import (
	"cmp"
	"math"
	"slices"

	"github.com/coordsim/coordsim/assignor/javaorder"
)

// Sticky is Kafka's StickyTaskAssignor (see the package doc for the rules).
type Sticky struct{}

// Name implements TaskAssignor.
func (Sticky) Name() string { return StickyName }

// String is the name, as Kafka's toString.
func (Sticky) String() string { return StickyName }

// Assign implements TaskAssignor: StickyTaskAssignor.assign.
func (Sticky) Assign(spec *GroupSpec, topology TopologyDescriber) (GroupAssignment, error) {
	m, err := newModel(spec, topology)
	if err != nil {
		return nil, err
	}
	st := newState(m)
	// doAssign: every task, stateful or not, in one active pass; standbys
	// for the stateful ones.
	tasks := make([]int, m.numTasks)
	for t := range tasks {
		tasks[t] = t
	}
	if err := st.assignActive(tasks); err != nil {
		return nil, err
	}
	if m.standbys > 0 {
		var stateful []int
		for s, sub := range m.subs {
			if sub.Stateful {
				for p := range int(sub.NumTasks) {
					stateful = append(stateful, m.first[s]+p)
				}
			}
		}
		st.assignStandby(stateful)
	}
	return st.result(), nil
}

// procState is Kafka's ProcessState.
type procState struct {
	// members is the process's memberToTaskCounts keys in that HashMap's
	// iteration order.
	members   []int
	taskCount int // active and standby
	// byLoad is membersByLoad, the cached PriorityQueue of (member, task
	// count) entries; nil when a direct addTask invalidated it.
	byLoad *javaPQ[memberLoad]
}

// memberLoad is one entry of membersByLoad: a copy of a member's task
// count, updated only through the queue.
type memberLoad struct {
	member, count int
}

// load is ProcessState.load: tasks per member, as a double.
func (st *state) load(p int) float64 {
	ps := &st.procs[p]
	return float64(ps.taskCount) / float64(len(ps.members))
}

// state is Kafka's LocalState.
type state struct {
	m     *model
	procs []procState
	// procOrder is processIdToState.values() in that HashMap's iteration
	// order: the order the load queues are filled in.
	procOrder []int
	count     []int   // tasks per member (memberToTaskCounts)
	active    [][]int // task indices per member
	standby   [][]int
	// holders lists, per task, the processes that hold it (active or
	// standby): ProcessState.hasTask.
	holders [][]int32

	totalActiveTasks, totalTasks                                 int
	totalMembersWithActiveCapacity, totalMembersWithTaskCapacity int
	activeTasksPerMember, totalTasksPerMember                    int
}

func newState(m *model) *state {
	st := &state{
		m:       m,
		procs:   make([]procState, len(m.procs)),
		count:   make([]int, len(m.members)),
		active:  make([][]int, len(m.members)),
		standby: make([][]int, len(m.members)),
		holders: make([][]int32, m.numTasks),
	}
	// initialize: the members in GroupSpec.memberIds order (a HashMap of
	// member ids), each put into its process's state, the processes into
	// processIdToState (a HashMap sized for the member count).
	ids := make([]string, len(m.members))
	for i, x := range m.members {
		ids[i] = x.id
	}
	var procIDs []string
	var procIdx []int
	for _, i := range javaorder.PutOrder(ids) {
		p := m.members[i].proc
		st.procs[p].members = append(st.procs[p].members, i)
		procIDs = append(procIDs, m.procs[p])
		procIdx = append(procIdx, p)
	}
	for _, k := range javaorder.StringMapOrder(procIDs, len(m.members), javaorder.ComputeIfAbsent) {
		st.procOrder = append(st.procOrder, procIdx[k])
	}
	for p := range st.procs {
		members := st.procs[p].members
		pids := make([]string, len(members))
		for k, i := range members {
			pids[k] = m.members[i].id
		}
		ordered := make([]int, 0, len(members))
		for _, k := range javaorder.PutOrder(pids) {
			ordered = append(ordered, members[k])
		}
		st.procs[p].members = ordered
	}
	// The per-task holder lists and the per-member active lists start in
	// one array each, sized for the usual case (a task held by its active
	// process and its standbys; a member's fair share of active tasks).
	// Each slice is capped, so one that outgrows its room is copied out
	// instead of running into its neighbour's.
	if k := 1 + m.standbys; m.numTasks > 0 {
		buf := make([]int32, m.numTasks*k)
		for t := range st.holders {
			st.holders[t] = buf[t*k : t*k : t*k+k]
		}
	}
	if n := len(m.members); n > 0 && m.numTasks > 0 {
		q := tasksPerMember(m.numTasks, n)
		buf := make([]int, n*q)
		for i := range st.active {
			st.active[i] = buf[i*q : i*q : i*q+q]
		}
	}
	for _, s := range m.subs {
		n := int(s.NumTasks)
		st.totalTasks += n
		st.totalActiveTasks += n
		if s.Stateful {
			st.totalTasks += n * m.standbys
		}
	}
	n := len(m.members)
	st.totalMembersWithActiveCapacity, st.totalMembersWithTaskCapacity = n, n
	st.activeTasksPerMember = tasksPerMember(st.totalActiveTasks, n)
	st.totalTasksPerMember = tasksPerMember(st.totalTasks, n)
	return st
}

// tasksPerMember is Kafka's computeTasksPerMember: ceil(tasks / members), 0
// without members.
func tasksPerMember(tasks, members int) int {
	if members == 0 {
		return 0
	}
	return (tasks + members - 1) / members
}

func (st *state) hasTask(proc, task int) bool {
	return slices.Contains(st.holders[task], int32(proc))
}

// addTaskInternal is ProcessState.addTaskInternal: gives task to member and
// returns the member's new task count.
func (st *state) addTaskInternal(member, task int, active bool) int {
	p := st.m.members[member].proc
	st.procs[p].taskCount++
	if active {
		st.active[member] = append(st.active[member], task)
	} else {
		st.standby[member] = append(st.standby[member], task)
	}
	st.holders[task] = append(st.holders[task], int32(p))
	st.count[member]++
	return st.count[member]
}

// addTask is ProcessState.addTask: addTaskInternal, and the process's
// membersByLoad queue is dropped (it no longer matches the counts).
func (st *state) addTask(member, task int, active bool) int {
	n := st.addTaskInternal(member, task, active)
	st.procs[st.m.members[member].proc].byLoad = nil
	return n
}

// addTaskToLeastLoadedMember is ProcessState.addTaskToLeastLoadedMember: the
// only member, or the head of membersByLoad (built on first use from
// memberToTaskCounts in its HashMap order, compared by count alone), which
// goes back in with its new count.
func (st *state) addTaskToLeastLoadedMember(proc, task int, active bool) int {
	ps := &st.procs[proc]
	if len(ps.members) == 1 {
		return st.addTaskInternal(ps.members[0], task, active)
	}
	if ps.byLoad == nil {
		ps.byLoad = &javaPQ[memberLoad]{cmp: func(a, b memberLoad) int { return cmp.Compare(a.count, b.count) }}
		for _, i := range ps.members {
			ps.byLoad.add(memberLoad{member: i, count: st.count[i]})
		}
	}
	e, _ := ps.byLoad.poll()
	e.count = st.addTaskInternal(e.member, task, active)
	ps.byLoad.add(e)
	return e.count
}

func (st *state) maybeUpdateActiveTasksPerMember(n int) {
	if n == st.activeTasksPerMember {
		st.totalMembersWithActiveCapacity--
		st.totalActiveTasks -= n
		st.activeTasksPerMember = tasksPerMember(st.totalActiveTasks, st.totalMembersWithActiveCapacity)
	}
}

func (st *state) maybeUpdateTotalTasksPerMember(n int) {
	if n == st.totalTasksPerMember {
		st.totalMembersWithTaskCapacity--
		st.totalTasks -= n
		st.totalTasksPerMember = tasksPerMember(st.totalTasks, st.totalMembersWithTaskCapacity)
	}
}

// hasUnfulfilledActiveTaskQuota: the member's count (all its tasks) is
// under the active quota.
func (st *state) hasUnfulfilledActiveTaskQuota(member int) bool {
	return st.count[member] < st.activeTasksPerMember
}

// hasUnfulfilledTaskQuota: the member's count is under the total quota.
func (st *state) hasUnfulfilledTaskQuota(member int) bool {
	return st.count[member] < st.totalTasksPerMember
}

// subtopologyOf returns the subtopology index of task.
func (st *state) subtopologyOf(task int) int { return int(st.m.subOf[task]) }

// byPartitionThenSubtopology is Kafka's
// Comparator.comparing(TaskId::partition).thenComparing(TaskId::subtopologyId).
// Subtopologies are indexed in id order, so comparing indices compares ids.
func (st *state) byPartitionThenSubtopology(a, b int) int {
	sa, sb := st.subtopologyOf(a), st.subtopologyOf(b)
	return cmp.Or(cmp.Compare(a-st.m.first[sa], b-st.m.first[sb]), cmp.Compare(sa, sb))
}

// processQueue is the PriorityQueue<ProcessState> of assignActive and
// assignStandby: Comparator.comparingDouble(ProcessState::load), filled
// with processIdToState.values().
func (st *state) processQueue() *javaPQ[int] {
	q := &javaPQ[int]{cmp: func(a, b int) int { return cmp.Compare(st.load(a), st.load(b)) }}
	for _, p := range st.procOrder {
		q.add(p)
	}
	return q
}

// assignActive is StickyTaskAssignor.assignActive.
func (st *state) assignActive(tasks []int) error {
	// Previous assignments are assumed range-like, so visit by partition
	// first.
	slices.SortFunc(tasks, st.byPartitionThenSubtopology)

	// 1. The previous active owner, while under quota.
	rest := tasks[:0]
	for _, t := range tasks {
		if o := st.m.prevActive[t]; o >= 0 && st.hasUnfulfilledActiveTaskQuota(int(o)) {
			n := st.addTask(int(o), t, true)
			st.maybeUpdateActiveTasksPerMember(n)
			st.maybeUpdateTotalTasksPerMember(n)
			continue
		}
		rest = append(rest, t)
	}
	tasks = rest

	// 2. The least-loaded previous standby, if it is under quota (the
	// quota is checked on the one chosen, not while choosing).
	rest = tasks[:0]
	for _, t := range tasks {
		if o := st.findPrevMemberWithLeastLoad(st.candidatesOf(t), -1); o >= 0 && st.hasUnfulfilledActiveTaskQuota(o) {
			n := st.addTask(o, t, true)
			st.maybeUpdateActiveTasksPerMember(n)
			st.maybeUpdateTotalTasksPerMember(n)
			continue
		}
		rest = append(rest, t)
	}
	tasks = rest

	// 3. The rest, range-like (subtopology then partition: task index
	// order), each to the least-loaded member of the least-loaded process.
	slices.Sort(tasks)
	q := st.processQueue()
	for _, t := range tasks {
		p, ok := q.poll()
		if !ok {
			return assignorError("No process available to assign active task %s.", st.m.taskID(t))
		}
		n := st.addTaskToLeastLoadedMember(p, t, true)
		st.maybeUpdateActiveTasksPerMember(n)
		st.maybeUpdateTotalTasksPerMember(n)
		q.add(p)
	}
	return nil
}

func (st *state) candidatesOf(task int) []int32 {
	if st.m.candidates == nil {
		return nil
	}
	return st.m.candidates[task]
}

// findPrevMemberWithLeastLoad is Kafka's method of that name: among members
// (in rank order) whose process does not hold standbyTask yet (when >= 0),
// the first one, replaced by a later one only when both its process load
// and its own task count are strictly lower. -1 when none qualifies.
func (st *state) findPrevMemberWithLeastLoad(members []int32, standbyTask int) int {
	best := -1
	bestLoad, bestCount := math.MaxFloat64, math.MaxFloat64
	for _, x := range members {
		i := int(x)
		p := st.m.members[i].proc
		if standbyTask >= 0 && st.hasTask(p, standbyTask) {
			continue
		}
		load, count := st.load(p), float64(st.count[i])
		if best < 0 || (load < bestLoad && count < bestCount) {
			best, bestLoad, bestCount = i, load, count
		}
	}
	return best
}

// standbyToAssign is Kafka's StandbyToAssign.
type standbyToAssign struct {
	task, remaining int
}

// assignStandby is StickyTaskAssignor.assignStandby over the stateful tasks.
func (st *state) assignStandby(tasks []int) {
	n := st.m.standbys
	// Visit by partition first, both orders reversed, as Kafka does.
	slices.SortFunc(tasks, func(a, b int) int { return st.byPartitionThenSubtopology(b, a) })
	var toLeastLoaded []standbyToAssign
	for _, t := range tasks {
		for i := range n {
			// The previous active owner, if its process does not hold the
			// task now and it is under the total quota.
			if o := st.m.prevActive[t]; o >= 0 {
				if !st.hasTask(st.m.members[o].proc, t) && st.hasUnfulfilledTaskQuota(int(o)) {
					st.maybeUpdateTotalTasksPerMember(st.addTask(int(o), t, false))
					continue
				}
			}
			// The least-loaded previous standby, if under the total quota.
			if o := st.findPrevMemberWithLeastLoad(st.candidatesOf(t), t); o >= 0 && st.hasUnfulfilledTaskQuota(o) {
				st.maybeUpdateTotalTasksPerMember(st.addTask(o, t, false))
				continue
			}
			toLeastLoaded = append(toLeastLoaded, standbyToAssign{task: t, remaining: n - i})
			break
		}
	}
	// Range-like again: subtopology then partition, reversed.
	slices.SortFunc(toLeastLoaded, func(a, b standbyToAssign) int { return cmp.Compare(b.task, a.task) })
	q := st.processQueue()
	var polled []int
	for _, x := range toLeastLoaded {
		for range x.remaining {
			// assignStandbyToMemberWithLeastLoad, a recursion unrolled: poll
			// processes until one does not hold the task, give it to its
			// least-loaded member, then put the polled processes back, the
			// last polled first. Fewer copies than asked when none is left
			// (Kafka logs "There is not enough available capacity").
			polled = polled[:0]
			placed := false
			for {
				p, ok := q.poll()
				if !ok {
					break
				}
				polled = append(polled, p)
				if !st.hasTask(p, x.task) {
					st.maybeUpdateTotalTasksPerMember(st.addTaskToLeastLoadedMember(p, x.task, false))
					placed = true
					break
				}
			}
			for k := len(polled) - 1; k >= 0; k-- {
				q.add(polled[k])
			}
			if !placed {
				break
			}
		}
	}
}

// result is buildGroupAssignment: every member, sorted by id, tasks by
// subtopology id then partition.
func (st *state) result() GroupAssignment {
	out := make(GroupAssignment, len(st.m.members))
	for i, x := range st.m.members {
		out[i] = MemberAssignment{
			MemberID:     x.id,
			ActiveTasks:  st.compact(st.active[i]),
			StandbyTasks: st.compact(st.standby[i]),
		}
	}
	return out
}

// compact is toCompactedTaskIds, sorted. The subtopologies' partition
// lists share one array, capped per subtopology.
func (st *state) compact(tasks []int) []Tasks {
	if len(tasks) == 0 {
		return nil
	}
	slices.Sort(tasks)
	groups := 1
	for k := 1; k < len(tasks); k++ {
		if st.m.subs[st.subtopologyOf(tasks[k])].ID != st.m.subs[st.subtopologyOf(tasks[k-1])].ID {
			groups++
		}
	}
	out := make([]Tasks, 0, groups)
	parts := make([]int32, len(tasks))
	from := 0
	for k, t := range tasks {
		s := st.subtopologyOf(t)
		id := st.m.subs[s].ID
		parts[k] = int32(t - st.m.first[s])
		if len(out) == 0 || out[len(out)-1].SubtopologyID != id {
			out = append(out, Tasks{SubtopologyID: id})
			from = k
		}
		out[len(out)-1].Partitions = parts[from : k+1 : k+1]
	}
	return out
}
