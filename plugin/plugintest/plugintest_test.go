package plugintest_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/memstore"
	"github.com/coordsim/coordsim/plugin/plugintest"
)

// bug names one way a store gets the contract wrong.
type bug int

const (
	noBug              bug = iota
	getIgnoresEpoch        // returns the stored description for any epoch
	deleteLatestOnly       // keeps every epoch; delete removes only the latest
	deleteMissingFails     // delete errors when nothing is stored
	panicsAfterClose       // calls after Close panic
	succeedsAfterClose     // calls after Close succeed
	keepsPointer           // stores and returns the caller's pointer
	setNotIdempotent       // a second set of the same (group, epoch) fails
	prefixKeys             // looks groups up by prefix
	forgetsLowerEpochs     // after a delete, refuses sets at a lower epoch than ever seen
	ignoresCancel          // runs calls whose context is already cancelled
)

// buggyStore is a map store with exactly one bug, to prove the suite catches it.
type buggyStore struct {
	bug    bug
	mu     sync.Mutex
	rows   map[string]map[int32]*plugin.TopologyDescription
	high   map[string]int32 // highest epoch ever set, for forgetsLowerEpochs
	closed bool
}

func newBuggy(b bug) func() (plugin.Store, error) {
	return func() (plugin.Store, error) {
		return &buggyStore{bug: b, rows: map[string]map[int32]*plugin.TopologyDescription{}, high: map[string]int32{}}, nil
	}
}

// cancelled is the store's answer to a context already done.
func (s *buggyStore) cancelled(ctx context.Context) error {
	if s.bug == ignoresCancel {
		return nil
	}
	return plugin.CheckContext(ctx)
}

func (s *buggyStore) afterClose() error {
	switch {
	case !s.closed:
		return nil
	case s.bug == panicsAfterClose:
		panic("use after close")
	case s.bug == succeedsAfterClose:
		return nil
	default:
		return plugin.ErrClosed
	}
}

func (s *buggyStore) find(groupID string) (map[int32]*plugin.TopologyDescription, bool) {
	if s.bug == prefixKeys {
		for g, r := range s.rows {
			if len(g) >= len(groupID) && g[:len(groupID)] == groupID {
				return r, true
			}
		}
	}
	r, ok := s.rows[groupID]
	return r, ok
}

func (s *buggyStore) SetTopology(ctx context.Context, groupID string, epoch int32, d *plugin.TopologyDescription) error {
	if err := s.cancelled(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.afterClose(); err != nil || s.closed {
		return err
	}
	if s.bug == setNotIdempotent && s.rows[groupID][epoch] != nil {
		return errors.New("already set")
	}
	if s.bug == forgetsLowerEpochs && epoch < s.high[groupID] {
		return nil
	}
	s.high[groupID] = max(s.high[groupID], epoch)
	if s.bug != keepsPointer {
		d = d.Clone()
	}
	if s.bug != deleteLatestOnly || s.rows[groupID] == nil {
		s.rows[groupID] = map[int32]*plugin.TopologyDescription{}
	}
	s.rows[groupID][epoch] = d
	return nil
}

func (s *buggyStore) GetTopology(ctx context.Context, groupID string, epoch int32) (*plugin.TopologyDescription, error) {
	if err := s.cancelled(ctx); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.afterClose(); err != nil || s.closed {
		return nil, err
	}
	r, _ := s.find(groupID)
	for e, d := range r {
		if e == epoch || s.bug == getIgnoresEpoch {
			if s.bug == keepsPointer {
				return d, nil
			}
			return d.Clone(), nil
		}
	}
	return nil, nil
}

func (s *buggyStore) DeleteTopology(ctx context.Context, groupID string) error {
	if err := s.cancelled(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.afterClose(); err != nil || s.closed {
		return err
	}
	r, ok := s.rows[groupID]
	switch {
	case !ok && s.bug == deleteMissingFails:
		return errors.New("no such group")
	case s.bug == deleteLatestOnly && ok:
		latest := int32(-1)
		for e := range r {
			latest = max(latest, e)
		}
		delete(r, latest)
		if len(r) == 0 {
			delete(s.rows, groupID)
		}
	default:
		delete(s.rows, groupID)
	}
	return nil
}

func (s *buggyStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

// TestSuiteCatchesBrokenStores proves that the suite fails each broken store, names
// the check that caught it, and does not blame checks the bug cannot affect.
func TestSuiteCatchesBrokenStores(t *testing.T) {
	tests := []struct {
		name     string
		bug      bug
		opts     []plugintest.Option
		want     []string // checks that must fail
		wantPass []string // checks that must pass
	}{
		{"get ignores the epoch", getIgnoresEpoch, nil, []string{"epoch-scoped-get"}, []string{"roundtrip", "closed"}},
		{"delete is epoch-scoped", deleteLatestOnly, []plugintest.Option{plugintest.AllowEpochHistory()}, []string{"delete-across-epochs"}, []string{"roundtrip", "new-epoch-replaces"}},
		{"delete of nothing fails", deleteMissingFails, nil, []string{"delete-nothing-stored"}, []string{"roundtrip", "delete-across-epochs"}},
		{"panics after close", panicsAfterClose, nil, []string{"closed"}, []string{"roundtrip"}},
		{"works after close", succeedsAfterClose, nil, []string{"closed"}, []string{"roundtrip"}},
		{"keeps the caller's pointer", keepsPointer, nil, []string{"copies"}, []string{"roundtrip"}},
		{"set not idempotent", setNotIdempotent, nil, []string{"idempotent-set", "concurrent"}, []string{"roundtrip"}},
		{"prefix keys", prefixKeys, nil, []string{"unknown-group"}, []string{"roundtrip"}},
		{"lower epochs refused after delete", forgetsLowerEpochs, nil, []string{"delete-then-get"}, []string{"roundtrip"}},
		{"cancelled context ignored", ignoresCancel, nil, []string{"cancelled-context"}, []string{"roundtrip", "closed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := plugintest.TestStore(newBuggy(tt.bug), tt.opts...)
			require.Error(t, err)
			for _, c := range tt.want {
				assert.Contains(t, err.Error(), c+": ", "the suite must blame %s", c)
			}
			for _, c := range tt.wantPass {
				assert.NotContains(t, err.Error(), c+": ", "the suite must not blame %s", c)
			}
		})
	}
	require.NoError(t, plugintest.TestStore(newBuggy(noBug)), "the map store without a bug conforms")
}

// TestSuiteCatchesLostData proves that the reopen check fails a store whose data does
// not survive a reopen.
func TestSuiteCatchesLostData(t *testing.T) {
	newStore := func() (plugin.Store, error) { return memstore.New(), nil }
	err := plugintest.TestStore(newStore, plugintest.WithReopen(newStore))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "reopen: after reopen: GetTopology(\"plugintest-reopen-a\", 3) = nil")
}

// TestSuiteReportsSetupErrors proves that a newStore that fails, returns nil, or is
// nil is reported per check rather than crashing the suite.
func TestSuiteReportsSetupErrors(t *testing.T) {
	err := plugintest.TestStore(func() (plugin.Store, error) { return nil, errors.New("no disk") })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "roundtrip: new store: no disk")
	assert.ErrorContains(t, plugintest.TestStore(func() (plugin.Store, error) { return nil, nil }), "nil store")
	assert.ErrorContains(t, plugintest.TestStore(nil), "newStore is nil")
}

// tokenIgnoringStore claims plugin.FencedStore but ignores the tokens: its
// fenced calls are the plain ones. It is the store a fencing protocol cannot
// trust.
type tokenIgnoringStore struct{ *memstore.Store }

func (s tokenIgnoringStore) SetTopologyFenced(ctx context.Context, g string, e int32, d *plugin.TopologyDescription, _ int32) error {
	return s.SetTopology(ctx, g, e, d)
}

func (s tokenIgnoringStore) DeleteTopologyFenced(ctx context.Context, g string, _ int32) error {
	return s.DeleteTopology(ctx, g)
}

// forgetfulFencedStore fences like memstore but drops a group's token with
// its row, so a stale call after a delete goes through.
type forgetfulFencedStore struct {
	*memstore.Store
	mu     sync.Mutex
	tokens map[string]int32
}

// fence checks tok against g's highest token; the caller holds mu.
func (s *forgetfulFencedStore) fence(g string, tok int32) error {
	if err := plugin.CheckToken(tok); err != nil {
		return err
	}
	high, ok := s.tokens[g]
	return plugin.Fence(g, high, ok, tok)
}

func (s *forgetfulFencedStore) SetTopologyFenced(ctx context.Context, g string, e int32, d *plugin.TopologyDescription, tok int32) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fence(g, tok); err != nil {
		return err
	}
	s.tokens[g] = tok
	return s.SetTopology(ctx, g, e, d)
}

func (s *forgetfulFencedStore) DeleteTopologyFenced(ctx context.Context, g string, tok int32) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fence(g, tok); err != nil {
		return err
	}
	delete(s.tokens, g)
	return s.DeleteTopology(ctx, g)
}

// TestSuiteCatchesBrokenFencing proves the fenced-* checks: a store that
// claims plugin.FencedStore but ignores the tokens fails the refusals, one
// that forgets a token on delete fails fenced-token-survives-delete, and
// memstore passes every one; a plain store is not put through them.
func TestSuiteCatchesBrokenFencing(t *testing.T) {
	err := plugintest.TestStore(func() (plugin.Store, error) { return tokenIgnoringStore{memstore.New()}, nil })
	require.Error(t, err)
	for _, c := range []string{"fenced-stale-delete", "fenced-stale-set", "fenced-token-survives-delete"} {
		assert.Contains(t, err.Error(), c+": ", "the suite must blame %s", c)
	}
	for _, c := range []string{"roundtrip", "fenced-equal-accepted", "fenced-groups-isolated"} {
		assert.NotContains(t, err.Error(), c+": ", "the suite must not blame %s", c)
	}

	err = plugintest.TestStore(func() (plugin.Store, error) {
		return &forgetfulFencedStore{Store: memstore.New(), tokens: map[string]int32{}}, nil
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "fenced-token-survives-delete: ")
	assert.NotContains(t, err.Error(), "fenced-stale-delete: ")

	require.NoError(t, plugintest.TestStore(func() (plugin.Store, error) { return memstore.New(), nil }))
	require.NoError(t, plugintest.TestStore(newBuggy(noBug)), "a plain store skips the fenced checks")
}

// TestChecks proves that Checks lists every check the suite runs, reopen last.
func TestChecks(t *testing.T) {
	names := plugintest.Checks()
	assert.Len(t, names, 23)
	assert.Equal(t, "roundtrip", names[0])
	assert.Equal(t, "reopen", names[len(names)-1])
}

// TestCopiesMessageNamesTheDifference proves the copies check's failure
// says what differs (issue 26: it read "= a description of 1 subtopologies
// and 3 nodes, want a description of 1 subtopologies and 3 nodes", a
// difference it did not show): here the caller's later edit.
func TestCopiesMessageNamesTheDifference(t *testing.T) {
	err := plugintest.TestStore(newBuggy(keepsPointer))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `the store retained the caller's description`)
	assert.Contains(t, err.Error(), `has id "mutated-by-caller", want`)
}
