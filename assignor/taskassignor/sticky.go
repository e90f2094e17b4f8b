package taskassignor

import (
	"cmp"
	"slices"
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
	var stateful, stateless []int
	for s, sub := range m.subs {
		for p := range int(sub.NumTasks) {
			if sub.Stateful {
				stateful = append(stateful, m.first[s]+p)
			} else {
				stateless = append(stateless, m.first[s]+p)
			}
		}
	}
	// Stateful tasks are placed first: the stateful quota check reads a
	// member's task count as its stateful active count, true only while
	// nothing else is assigned.
	if err := st.assignActive(slices.Clone(stateful), true); err != nil {
		return nil, err
	}
	if err := st.assignActive(stateless, false); err != nil {
		return nil, err
	}
	if m.standbys > 0 {
		st.assignStandby(stateful)
	}
	return st.result(), nil
}

// procState is Kafka's ProcessState: the members of one process and the
// tasks they were given.
type procState struct {
	members         []int // member indices, ascending (so by member id)
	taskCount       int   // active and standby
	statelessActive int
}

// state is Kafka's LocalState.
type state struct {
	m       *model
	procs   []procState
	count   []int   // tasks per member (memberToTaskCounts)
	active  [][]int // task indices per member
	standby [][]int
	// holders lists, per task, the processes that hold it (active or
	// standby): ProcessState.hasTask.
	holders [][]int32

	totalStatefulActive, totalActive, totalTasks                int
	membersStatefulActive, membersActive, membersTotal          int
	statefulActivePerMember, activePerMember, totalTasksPerMmbr int
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
	for i, x := range m.members {
		st.procs[x.proc].members = append(st.procs[x.proc].members, i)
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
		st.totalActive += n
		if s.Stateful {
			st.totalStatefulActive += n
			st.totalTasks += n * m.standbys
		}
	}
	n := len(m.members)
	st.membersStatefulActive, st.membersActive, st.membersTotal = n, n, n
	st.statefulActivePerMember = tasksPerMember(st.totalStatefulActive, n)
	st.activePerMember = tasksPerMember(st.totalActive, n)
	st.totalTasksPerMmbr = tasksPerMember(st.totalTasks, n)
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

// compareLoad orders processes by load, tasks per member, exactly.
func (st *state) compareLoad(a, b int) int {
	pa, pb := &st.procs[a], &st.procs[b]
	return cmp.Compare(pa.taskCount*len(pb.members), pb.taskCount*len(pa.members))
}

// compareStatelessLoad orders processes by stateless active tasks per member.
func (st *state) compareStatelessLoad(a, b int) int {
	pa, pb := &st.procs[a], &st.procs[b]
	return cmp.Compare(pa.statelessActive*len(pb.members), pb.statelessActive*len(pa.members))
}

func (st *state) hasTask(proc, task int) bool {
	return slices.Contains(st.holders[task], int32(proc))
}

// addTask is ProcessState.addTask: gives task to member and returns the
// member's new task count.
func (st *state) addTask(member, task int, active, stateful bool) int {
	p := st.m.members[member].proc
	ps := &st.procs[p]
	ps.taskCount++
	if active {
		st.active[member] = append(st.active[member], task)
		if !stateful {
			ps.statelessActive++
		}
	} else {
		st.standby[member] = append(st.standby[member], task)
	}
	st.holders[task] = append(st.holders[task], int32(p))
	st.count[member]++
	return st.count[member]
}

// addTaskToLeastLoadedMember is ProcessState.addTaskToLeastLoadedMember: the
// member of proc with the fewest tasks (ties to the smaller member id).
func (st *state) addTaskToLeastLoadedMember(proc, task int, active, stateful bool) int {
	best := -1
	for _, i := range st.procs[proc].members {
		if best < 0 || st.count[i] < st.count[best] {
			best = i
		}
	}
	return st.addTask(best, task, active, stateful)
}

func (st *state) maybeUpdateStatefulActivePerMember(n int) {
	if n == st.statefulActivePerMember {
		st.membersStatefulActive--
		st.totalStatefulActive -= n
		st.statefulActivePerMember = tasksPerMember(st.totalStatefulActive, st.membersStatefulActive)
	}
}

func (st *state) maybeUpdateActivePerMember(n int) {
	if n == st.activePerMember {
		st.membersActive--
		st.totalActive -= n
		st.activePerMember = tasksPerMember(st.totalActive, st.membersActive)
	}
}

func (st *state) maybeUpdateTotalPerMember(n int) {
	if n == st.totalTasksPerMmbr {
		st.membersTotal--
		st.totalTasks -= n
		st.totalTasksPerMmbr = tasksPerMember(st.totalTasks, st.membersTotal)
	}
}

// hasActiveQuota is hasUnfulfilledActiveTaskQuota. During the stateful pass
// nothing else is assigned yet, so the task count is the stateful count.
func (st *state) hasActiveQuota(member int, stateful bool) bool {
	quota := st.activePerMember
	if stateful {
		quota = st.statefulActivePerMember
	}
	return st.count[member] < quota
}

// hasTotalQuota is hasUnfulfilledTaskQuota.
func (st *state) hasTotalQuota(member int) bool { return st.count[member] < st.totalTasksPerMmbr }

// addActiveTask assigns an active task to member and updates every quota
// it counts towards.
func (st *state) addActiveTask(member, task int, stateful bool) {
	n := st.addTask(member, task, true, stateful)
	if stateful {
		st.maybeUpdateStatefulActivePerMember(n)
	}
	st.maybeUpdateActivePerMember(n)
	st.maybeUpdateTotalPerMember(n)
}

// subtopologyOf returns the subtopology index of task.
func (st *state) subtopologyOf(task int) int { return int(st.m.subOf[task]) }

// byPartitionThenSubtopology is Kafka's
// Comparator.comparing(TaskId::partition).thenComparing(TaskId::subtopologyId).
func (st *state) byPartitionThenSubtopology(a, b int) int {
	sa, sb := st.subtopologyOf(a), st.subtopologyOf(b)
	return cmp.Or(cmp.Compare(a-st.m.first[sa], b-st.m.first[sb]), cmp.Compare(sa, sb))
}

// assignActive is StickyTaskAssignor.assignActive for one flavour.
func (st *state) assignActive(tasks []int, stateful bool) error {
	// Previous assignments are assumed range-like, so visit by partition
	// first.
	slices.SortFunc(tasks, st.byPartitionThenSubtopology)

	// 1. The previous active owner, while under quota.
	rest := tasks[:0]
	for _, t := range tasks {
		if o := st.m.prevActive[t]; o >= 0 && st.hasActiveQuota(int(o), stateful) {
			st.addActiveTask(int(o), t, stateful)
			continue
		}
		rest = append(rest, t)
	}
	tasks = rest

	// 2. The least-loaded previous standby or warm-up holder under quota.
	rest = tasks[:0]
	for _, t := range tasks {
		if o := st.findPrevMemberWithLeastLoad(st.candidatesOf(t), -1, func(i int) bool { return st.hasActiveQuota(i, stateful) }); o >= 0 {
			st.addActiveTask(o, t, stateful)
			continue
		}
		rest = append(rest, t)
	}
	tasks = rest

	// 3. The rest, range-like (subtopology then partition: task index
	// order), to the least-loaded process; ties to fewer stateless active
	// tasks per member, then to the smaller process id.
	slices.Sort(tasks)
	h := procHeap{st: st, less: func(a, b int) bool {
		return cmp.Or(st.compareLoad(a, b), st.compareStatelessLoad(a, b), cmp.Compare(a, b)) < 0
	}}
	h.init(len(st.procs))
	for _, t := range tasks {
		if len(h.items) == 0 {
			return assignorError("No process available to assign active task %s.", st.m.taskID(t))
		}
		p := h.pop()
		n := st.addTaskToLeastLoadedMember(p, t, true, stateful)
		// The stateful quota is only read in steps 1 and 2.
		st.maybeUpdateActivePerMember(n)
		st.maybeUpdateTotalPerMember(n)
		h.push(p)
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
// (in rank order) that canAssign allows and, when standbyTask >= 0, whose
// process does not hold it yet, the first one, replaced by a later one only
// when both its process load and its own task count are strictly lower. -1
// when none qualifies.
func (st *state) findPrevMemberWithLeastLoad(members []int32, standbyTask int, canAssign func(int) bool) int {
	best := -1
	for _, x := range members {
		i := int(x)
		p := st.m.members[i].proc
		if standbyTask >= 0 && st.hasTask(p, standbyTask) {
			continue
		}
		if !canAssign(i) {
			continue
		}
		if best < 0 || (st.compareLoad(p, st.m.members[best].proc) < 0 && st.count[i] < st.count[best]) {
			best = i
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
				if !st.hasTask(st.m.members[o].proc, t) && st.hasTotalQuota(int(o)) {
					st.maybeUpdateTotalPerMember(st.addTask(int(o), t, false, true))
					continue
				}
			}
			// The least-loaded previous standby or warm-up holder.
			if o := st.findPrevMemberWithLeastLoad(st.candidatesOf(t), t, st.hasTotalQuota); o >= 0 {
				st.maybeUpdateTotalPerMember(st.addTask(o, t, false, true))
				continue
			}
			toLeastLoaded = append(toLeastLoaded, standbyToAssign{task: t, remaining: n - i})
			break
		}
	}
	// Range-like again: subtopology then partition, reversed.
	slices.SortFunc(toLeastLoaded, func(a, b standbyToAssign) int { return cmp.Compare(b.task, a.task) })
	h := procHeap{st: st, less: func(a, b int) bool {
		return cmp.Or(st.compareLoad(a, b), cmp.Compare(a, b)) < 0
	}}
	h.init(len(st.procs))
	var skipped []int
	for _, x := range toLeastLoaded {
		for range x.remaining {
			// assignStandbyToMemberWithLeastLoad: the least-loaded process
			// that does not hold the task. Fewer copies than asked when none
			// is left (Kafka logs "There is not enough available capacity").
			skipped = skipped[:0]
			placed := false
			for len(h.items) > 0 {
				p := h.pop()
				if st.hasTask(p, x.task) {
					skipped = append(skipped, p)
					continue
				}
				st.maybeUpdateTotalPerMember(st.addTaskToLeastLoadedMember(p, x.task, false, true))
				h.push(p)
				placed = true
				break
			}
			for _, p := range skipped {
				h.push(p)
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

// procHeap is a binary min-heap of process indices: Kafka's
// PriorityQueue<ProcessState>, with a total order so ties are fixed.
type procHeap struct {
	st    *state
	less  func(a, b int) bool
	items []int
}

func (h *procHeap) init(n int) {
	h.items = make([]int, n)
	for i := range h.items {
		h.items[i] = i
	}
	for i := n/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *procHeap) push(p int) {
	h.items = append(h.items, p)
	i := len(h.items) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(h.items[i], h.items[parent]) {
			break
		}
		h.items[i], h.items[parent] = h.items[parent], h.items[i]
		i = parent
	}
}

func (h *procHeap) pop() int {
	top := h.items[0]
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	if last > 0 {
		h.down(0)
	}
	return top
}

func (h *procHeap) down(i int) {
	n := len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		small := l
		if r := l + 1; r < n && h.less(h.items[r], h.items[l]) {
			small = r
		}
		if !h.less(h.items[small], h.items[i]) {
			return
		}
		h.items[i], h.items[small] = h.items[small], h.items[i]
		i = small
	}
}
