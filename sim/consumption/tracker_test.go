package consumption

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRevokeAfterCommitPausesButReadsNothingTwice proves a clean hand-over
// (the owner stops, commits where it stopped, lets go; the next owner
// takes later) costs a pause and no duplicate, and that the time before
// the first take is a pause too.
func TestRevokeAfterCommitPausesButReadsNothingTwice(t *testing.T) {
	tr := NewTracker()
	g := tr.AddGroup("app", 1, 0, 20_000)
	tr.Take(g, 0, 1, 1_000)
	tr.Stop(g, 0, 1, 8_000)
	pos, ok := tr.Position(g, 0, 1, 8_500)
	require.True(t, ok)
	assert.Equal(t, int64(8_000), pos, "a revoking member commits where it stopped, not where time is")
	tr.Commit(g, 0, pos)
	tr.Release(g, 0, 1, 8_500)
	tr.Take(g, 0, 2, 9_000)
	tr.Release(g, 0, 2, 20_000)
	l := tr.Finish(30_000)
	assert.Equal(t, []Span{{Group: g, FromMs: 0, ToMs: 1_000, Extra: 1}, {Group: g, FromMs: 8_000, ToMs: 9_000, Extra: 1}}, l.Pauses)
	assert.Empty(t, l.Rereads)
	assert.Equal(t, Cost{PauseMs: 2_000, LongestPauseMs: 1_000}, l.Total())
}

// TestCrashRereadsWhatWasReadSinceTheLastCommit proves a member that
// stops without committing (a crash) makes the next owner read again
// everything since the last accepted commit, and that a commit the
// coordinator never accepted does not count.
func TestCrashRereadsWhatWasReadSinceTheLastCommit(t *testing.T) {
	tr := NewTracker()
	g := tr.AddGroup("app", 2, 0, 200_000)
	tr.Take(g, 0, 1, 0)
	tr.Commit(g, 0, 30_000)
	// (A commit at 40 000 that the coordinator refused: Commit is never called.)
	tr.Release(g, 0, 1, 50_000) // crashed
	tr.Take(g, 0, 2, 95_000)
	l := tr.Finish(200_000)
	require.Equal(t, []Reread{{Group: g, AtMs: 95_000, Ms: 20_000}}, l.Rereads)
	c := l.Total()
	assert.Equal(t, int64(20_000*RecordsPerSecond/1000), c.Duplicates, "20 s of production read twice")
	assert.Equal(t, int64(45_000+200_000), c.PauseMs, "partition 0 waited 45 s; partition 1 was never taken")
	assert.Equal(t, int64(200_000), c.LongestPauseMs)
}

// TestZombieReadsEveryRecordTwiceUntilItLetsGo proves that while a fenced
// member that has not heard yet still consumes, every record the new
// owner reads is read twice, and that nothing pauses meanwhile.
func TestZombieReadsEveryRecordTwiceUntilItLetsGo(t *testing.T) {
	tr := NewTracker()
	g := tr.AddGroup("app", 1, 0, 100_000)
	tr.Take(g, 0, 1, 0)
	tr.Commit(g, 0, 10_000)
	tr.Take(g, 0, 2, 12_000) // member 1 is a zombie
	tr.Release(g, 0, 1, 17_000)
	l := tr.Finish(100_000)
	assert.Equal(t, []Reread{{Group: g, AtMs: 12_000, Ms: 2_000}}, l.Rereads)
	assert.Equal(t, []Span{{Group: g, FromMs: 12_000, ToMs: 17_000, Extra: 1}}, l.Overlaps)
	assert.Empty(t, l.Pauses)
	assert.Equal(t, int64(7_000*RecordsPerSecond/1000), l.Total().Duplicates)
}

// TestNeverCommittedRestartsWhereTheApplicationBegan proves a partition
// nobody committed is read again from where the application first read it.
func TestNeverCommittedRestartsWhereTheApplicationBegan(t *testing.T) {
	tr := NewTracker()
	g := tr.AddGroup("app", 1, 0, 100_000)
	tr.Take(g, 0, 1, 5_000)
	tr.Release(g, 0, 1, 65_000)
	tr.Take(g, 0, 2, 66_000)
	l := tr.Finish(100_000)
	assert.Equal(t, []Reread{{Group: g, AtMs: 66_000, Ms: 60_000}}, l.Rereads)
}

// TestFinishEndsEverythingAtTheGroupsEndOrWhereTheRunStopped proves the
// pause and the roll still open at the end are closed there, and that a
// run stopped before a group's end closes them where it stopped.
func TestFinishEndsEverythingAtTheGroupsEndOrWhereTheRunStopped(t *testing.T) {
	tr := NewTracker()
	g := tr.AddGroup("app", 1, 0, 100_000)
	tr.Take(g, 0, 1, 0)
	tr.OpenWindow(g, Upgrade, 40_000)
	tr.Release(g, 0, 1, 50_000)
	l := tr.Finish(70_000)
	assert.Equal(t, []Span{{Group: g, FromMs: 50_000, ToMs: 70_000, Extra: 1}}, l.Pauses)
	assert.Equal(t, []Window{{Kind: Upgrade, FromMs: 40_000, ToMs: 70_000}}, l.Groups[g].Windows)
}

// TestCompareMeasuresBothRunsInTheRollingRunsWindows proves each scope
// counts only what falls in the rolling run's windows of the same group,
// in both runs, that the whole run counts everything, and that a ratio
// over a baseline of 0 is left out rather than infinite.
func TestCompareMeasuresBothRunsInTheRollingRunsWindows(t *testing.T) {
	rolling := &Log{
		Groups: []Group{
			{ID: "a", BornMs: 0, EndMs: 1_000_000, Partitions: 1, Windows: []Window{{Upgrade, 100_000, 200_000}, {Downgrade, 500_000, 600_000}}},
			{ID: "b", BornMs: 0, EndMs: 1_000_000, Partitions: 1},
		},
		Pauses:  []Span{{Group: 0, FromMs: 150_000, ToMs: 250_000, Extra: 1}, {Group: 1, FromMs: 150_000, ToMs: 160_000, Extra: 1}},
		Rereads: []Reread{{Group: 0, AtMs: 550_000, Ms: 30_000}, {Group: 1, AtMs: 550_000, Ms: 1_000}},
	}
	baseline := &Log{
		Groups:  []Group{{ID: "a", BornMs: 0, EndMs: 1_000_000, Partitions: 1}, {ID: "b", BornMs: 0, EndMs: 1_000_000, Partitions: 1}},
		Pauses:  []Span{{Group: 0, FromMs: 190_000, ToMs: 210_000, Extra: 1}},
		Rereads: []Reread{{Group: 0, AtMs: 900_000, Ms: 5_000}},
	}
	scopes, err := Compare(rolling, baseline)
	require.NoError(t, err)
	require.Len(t, scopes, 3)
	up, down, whole := scopes[0], scopes[1], scopes[2]
	assert.Equal(t, ScopeUpgrade, up.Name)
	assert.Equal(t, Cost{PauseMs: 50_000, LongestPauseMs: 50_000}, up.Rolling, "group b's pause is outside group a's window")
	assert.Equal(t, Cost{PauseMs: 10_000, LongestPauseMs: 10_000}, up.Baseline)
	require.NotNil(t, up.PauseRatio)
	assert.InDelta(t, 5.0, *up.PauseRatio, 1e-9)
	assert.Nil(t, up.DuplicatesRatio)
	assert.Equal(t, int64(300), down.Rolling.Duplicates)
	assert.Zero(t, down.Baseline.Duplicates)
	assert.Nil(t, down.DuplicatesRatio, "no ratio over a baseline of 0")
	assert.Equal(t, Cost{Duplicates: 310, PauseMs: 110_000, LongestPauseMs: 100_000}, whole.Rolling)
	assert.Equal(t, Cost{Duplicates: 50, PauseMs: 20_000, LongestPauseMs: 20_000}, whole.Baseline)
	assert.Equal(t, 2, whole.Windows)

	baseline.Groups[1].ID = "c"
	_, err = Compare(rolling, baseline)
	assert.ErrorContains(t, err, `"b" in one run and "c"`)
}
