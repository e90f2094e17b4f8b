package taskassignor_test

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	ta "github.com/coordsim/coordsim/assignor/taskassignor"
)

// genCases rewrites testdata/sticky_cases.txt; testdata/StickyCases.java
// then turns it into kafka_sticky.txt with Kafka's own assignor.
var genCases = flag.Bool("gencases", false, "rewrite testdata/sticky_cases.txt")

// TestSticky_KafkaGolden proves the sticky assignor gives Kafka 4.4's exact
// assignment, ties included: every case of testdata/kafka_sticky.txt (random
// groups, previous assignments and standby counts, answered by Kafka 4.4's
// StickyTaskAssignor through testdata/StickyCases.java) gets the same
// active and standby tasks per member here.
func TestSticky_KafkaGolden(t *testing.T) {
	f, err := os.Open("testdata/kafka_sticky.txt")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		in, want, ok := strings.Cut(line, " => ")
		require.True(t, ok, "line %q has no answer", line)
		spec, topo := parseCase(t, in)
		got, err := ta.Sticky{}.Assign(spec, topo)
		if strings.HasPrefix(want, "error ") {
			require.Error(t, err, in)
			continue
		}
		require.NoError(t, err, in)
		require.Equal(t, want, formatAssignment(got), "case %s", in)
		n++
	}
	require.NoError(t, sc.Err())
	require.Greater(t, n, 100, "cases replayed")
}

func parseCase(t *testing.T, in string) (*ta.GroupSpec, ta.Topology) {
	t.Helper()
	parts := strings.Split(in, "|")
	require.Len(t, parts, 3)
	standbys, err := strconv.Atoi(strings.TrimSpace(parts[0]))
	require.NoError(t, err)
	var topo ta.Topology
	for _, s := range strings.Split(strings.TrimSpace(parts[1]), ",") {
		f := strings.Split(s, ":")
		n, err := strconv.Atoi(f[1])
		require.NoError(t, err)
		topo = append(topo, ta.Subtopology{ID: f[0], NumTasks: int32(n), Stateful: f[2] == "1"})
	}
	spec := &ta.GroupSpec{NumStandbyReplicas: int32(standbys)}
	for _, m := range strings.Split(strings.TrimSpace(parts[2]), ";") {
		f := strings.Split(strings.TrimSpace(m), ",")
		spec.Members = append(spec.Members, ta.AssignmentMemberSpec{MemberID: f[0], ProcessID: f[1],
			ActiveTasks: parseTasks(t, f[2]), StandbyTasks: parseTasks(t, f[3])})
	}
	return spec, topo
}

func parseTasks(t *testing.T, s string) []ta.Tasks {
	if s == "-" {
		return nil
	}
	var out []ta.Tasks
	for _, x := range strings.Split(s, "+") {
		sub, p, _ := strings.Cut(x, "/")
		n, err := strconv.Atoi(p)
		require.NoError(t, err)
		out = append(out, ta.Tasks{SubtopologyID: sub, Partitions: []int32{int32(n)}})
	}
	return out
}

func formatTasks(l []ta.Tasks) string {
	var out []string
	for _, x := range l {
		for _, p := range x.Partitions {
			out = append(out, fmt.Sprintf("%s/%d", x.SubtopologyID, p))
		}
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, "+")
}

func formatAssignment(a ta.GroupAssignment) string {
	out := make([]string, len(a))
	for i, m := range a {
		out[i] = m.MemberID + ":" + formatTasks(m.ActiveTasks) + ":" + formatTasks(m.StandbyTasks)
	}
	return strings.Join(out, " ; ")
}

// TestSticky_GenerateCases writes the random cases with -gencases: groups
// of 1 to 12 members in 1 to 6 processes, ids like Kafka's (UUIDs) and like
// the difftest's, previous actives and standbys from a random earlier
// assignment, members listed by id (the order coordsim assumes Kafka's
// member map received them in).
func TestSticky_GenerateCases(t *testing.T) {
	if !*genCases {
		t.Skip("run with -gencases to rewrite testdata/sticky_cases.txt")
	}
	r := rand.New(rand.NewPCG(44, 1071))
	var b strings.Builder
	b.WriteString("# Random sticky assignor cases (TestSticky_GenerateCases); kafka_sticky.txt adds Kafka 4.4's answers.\n")
	for range 600 {
		b.WriteString(randomCase(r) + "\n")
	}
	require.NoError(t, os.WriteFile("testdata/sticky_cases.txt", []byte(b.String()), 0o644))
}

func randomCase(r *rand.Rand) string {
	standbys := []int{0, 0, 1, 1, 2, 3}[r.IntN(6)]
	nsubs := 1 + r.IntN(3)
	type sub struct {
		id       string
		n        int
		stateful bool
	}
	var subs []sub
	var tp []string
	for s := range nsubs {
		x := sub{id: strconv.Itoa(s), n: 1 + r.IntN(8), stateful: r.IntN(3) > 0}
		if r.IntN(4) == 0 {
			x.id = fmt.Sprintf("sub-%c", 'a'+s)
		}
		subs = append(subs, x)
		st := 0
		if x.stateful {
			st = 1
		}
		tp = append(tp, fmt.Sprintf("%s:%d:%d", x.id, x.n, st))
	}
	nproc := 1 + r.IntN(6)
	nmem := 1 + r.IntN(12)
	style := r.IntN(3)
	type member struct {
		id, proc        string
		active, standby []string
	}
	members := make([]member, nmem)
	for i := range members {
		switch style {
		case 0:
			members[i].id = fmt.Sprintf("streams-member-%d-xxxxxxxxxx", i)
		case 1:
			members[i].id = fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", r.Uint32(), r.Uint32()&0xffff, r.Uint32()&0xffff, r.Uint32()&0xffff, r.Uint64()&0xffffffffffff)
		default:
			members[i].id = fmt.Sprintf("m%d", r.IntN(1000))
		}
		members[i].proc = fmt.Sprintf("process-%d", r.IntN(nproc))
		if style == 1 {
			members[i].proc = fmt.Sprintf("%08x-proc", r.Uint32()%uint32(nproc)*2654435761)
		}
	}
	slices.SortFunc(members, func(a, b member) int { return strings.Compare(a.id, b.id) })
	members = slices.CompactFunc(members, func(a, b member) bool { return a.id == b.id })
	// A random earlier assignment: some tasks had an active owner, some
	// standbys elsewhere.
	prev := r.IntN(3) // 0 fresh group, 1 partial, 2 full
	for _, s := range subs {
		for p := range s.n {
			task := fmt.Sprintf("%s/%d", s.id, p)
			owner := -1
			if prev == 2 || prev == 1 && r.IntN(2) == 0 {
				owner = r.IntN(len(members))
				members[owner].active = append(members[owner].active, task)
			}
			if s.stateful && prev > 0 {
				for range r.IntN(3) {
					k := r.IntN(len(members))
					if k != owner && !slices.Contains(members[k].standby, task) {
						members[k].standby = append(members[k].standby, task)
					}
				}
			}
		}
	}
	list := func(l []string) string {
		if len(l) == 0 {
			return "-"
		}
		return strings.Join(l, "+")
	}
	var ms []string
	for _, m := range members {
		ms = append(ms, fmt.Sprintf("%s,%s,%s,%s", m.id, m.proc, list(m.active), list(m.standby)))
	}
	return fmt.Sprintf("%d | %s | %s", standbys, strings.Join(tp, ","), strings.Join(ms, " ; "))
}
