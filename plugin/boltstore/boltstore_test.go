package boltstore

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/plugintest"
)

// newStores returns a newStore for the conformance suite that opens a fresh file per
// call, and a reopen that opens the file of the last one again.
func newStores(t *testing.T, opts ...Option) (newStore, reopen func() (plugin.Store, error)) {
	dir := t.TempDir()
	var path string
	n := 0
	newStore = func() (plugin.Store, error) {
		n++
		path = filepath.Join(dir, fmt.Sprintf("store-%d.db", n))
		return Open(path, opts...)
	}
	reopen = func() (plugin.Store, error) { return Open(path, opts...) }
	return newStore, reopen
}

// TestConformance proves that the bbolt store keeps every rule of the plugin.Store
// contract, including that its data survives Close and a reopen.
func TestConformance(t *testing.T) {
	newStore, reopen := newStores(t)
	// Fewer concurrent operations than the default: each write waits for an fsync,
	// and the no-sync run below covers the default load.
	plugintest.Run(t, newStore, plugintest.WithReopen(reopen), plugintest.WithConcurrency(8, 100))
}

// TestConformanceNoSync proves that skipping fsync changes nothing a process can
// observe: the suite, reopen included, passes as well.
func TestConformanceNoSync(t *testing.T) {
	newStore, reopen := newStores(t, WithNoSync())
	require.NoError(t, plugintest.TestStore(newStore, plugintest.WithReopen(reopen)))
}

// TestOlderEpochSetKeepsNewer proves the documented choice shared with memstore: a
// set at an older epoch succeeds and keeps the newer row, also across a reopen.
func TestOlderEpochSetKeepsNewer(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.db")
	s, err := Open(path)
	require.NoError(t, err)
	d3, d4 := plugin.SampleTopology(3, 1), plugin.SampleTopology(4, 1)
	require.NoError(t, s.SetTopology(ctx, "g", 4, d4))
	require.NoError(t, s.SetTopology(ctx, "g", 3, d3))
	require.NoError(t, s.Close())

	s, err = Open(path)
	require.NoError(t, err)
	defer s.Close()
	got, err := s.GetTopology(ctx, "g", 4)
	require.NoError(t, err)
	assert.True(t, got.Equal(d4))
	got, err = s.GetTopology(ctx, "g", 3)
	require.NoError(t, err)
	assert.Nil(t, got)
}

// TestCorruptRowIsPermanent proves that a row that does not decode is reported as a
// permanent error instead of being returned, and that a set repairs it.
func TestCorruptRowIsPermanent(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.db")
	s, err := Open(path)
	require.NoError(t, err)
	require.NoError(t, s.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte(bucketName)).Put([]byte("g"), []byte(`{"v":1,"epoch":2,"description":{}}`))
	}))
	got, err := s.GetTopology(ctx, "g", 2)
	assert.Nil(t, got)
	require.Error(t, err)
	assert.Equal(t, plugin.ClassPermanent, plugin.Classify(err))
	assert.ErrorIs(t, err, errCorrupt)

	d := plugin.SampleTopology(1, 1)
	require.NoError(t, s.SetTopology(ctx, "g", 1, d), "a corrupt row must not block the group")
	got, err = s.GetTopology(ctx, "g", 1)
	require.NoError(t, err)
	assert.True(t, got.Equal(d))
	require.NoError(t, s.Close())
}

// TestClosedStoreErrors proves that every call after Close fails with ErrClosed, a
// permanent error, and that Close is idempotent.
func TestClosedStoreErrors(t *testing.T) {
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "s.db"))
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.NoError(t, s.Close())
	_, getErr := s.GetTopology(ctx, "g", 1)
	for _, err := range []error{s.SetTopology(ctx, "g", 1, plugin.SampleTopology(1, 1)), getErr, s.DeleteTopology(ctx, "g")} {
		assert.ErrorIs(t, err, plugin.ErrClosed)
		assert.Equal(t, plugin.ClassPermanent, plugin.Classify(err))
	}
}

// TestSecondOpenTimesOut proves that opening a file another Store holds fails after
// the lock timeout instead of hanging, as bbolt's default would.
func TestSecondOpenTimesOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	s, err := Open(path)
	require.NoError(t, err)
	defer s.Close()
	_, err = Open(path, WithLockTimeout(20*time.Millisecond))
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
}

// TestCanceledContext proves that a call with an ended context fails transiently
// without touching the file.
func TestCanceledContext(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "s.db"))
	require.NoError(t, err)
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = s.SetTopology(ctx, "g", 1, plugin.SampleTopology(1, 1))
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, plugin.ClassTransient, plugin.Classify(err))
	got, err := s.GetTopology(context.Background(), "g", 1)
	require.NoError(t, err)
	assert.Nil(t, got)
}

// TestEncodeDeterministic proves that the stored bytes depend only on the input, so
// an idempotent set rewrites identical bytes.
func TestEncodeDeterministic(t *testing.T) {
	for seed := range uint64(20) {
		a, err := encode(int32(seed), plugin.SampleTopology(seed, 4))
		require.NoError(t, err)
		b, err := encode(int32(seed), plugin.SampleTopology(seed, 4))
		require.NoError(t, err)
		assert.Equal(t, a, b)
	}
}

// FuzzDecode proves that decode never panics, and that whatever it accepts encodes
// and decodes back to the same record.
func FuzzDecode(f *testing.F) {
	for seed := range uint64(4) {
		b, err := encode(int32(seed), plugin.SampleTopology(seed, int(seed)+1))
		require.NoError(f, err)
		f.Add(b)
	}
	f.Add([]byte(`{"v":1,"epoch":0,"description":{"subtopologies":[{"id":"0","nodes":[{"name":"s","kind":"source","topics":["t"]}]}]}}`))
	f.Add([]byte(`{"v":1,"epoch":-1,"description":null}`))
	f.Add([]byte(`{"v":2}`))
	f.Add([]byte(`null`))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		epoch, d, err := decode(b)
		if err != nil {
			assert.ErrorIs(t, err, errCorrupt)
			assert.Nil(t, d)
			return
		}
		require.NoError(t, d.Validate())
		again, err := encode(epoch, d)
		require.NoError(t, err)
		epoch2, d2, err := decode(again)
		require.NoError(t, err)
		assert.Equal(t, epoch, epoch2)
		assert.True(t, d.Equal(d2))
	})
}

// TestListSortedAndSurvivesReopen proves List (plugin.Lister) returns every
// row sorted by group id with its epoch, after a reopen too.
func TestListSortedAndSurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "topology.db")
	s, err := Open(path)
	require.NoError(t, err)
	ctx := context.Background()
	for i, g := range []string{"b", "a", "grüße"} {
		require.NoError(t, s.SetTopology(ctx, g, int32(i+1), plugin.SampleTopology(uint64(i), 1)))
	}
	want := []plugin.Entry{{GroupID: "a", TopologyEpoch: 2}, {GroupID: "b", TopologyEpoch: 1}, {GroupID: "grüße", TopologyEpoch: 3}}
	assert.Equal(t, want, s.List())
	require.NoError(t, s.Close())
	assert.Nil(t, s.List(), "a closed store lists nothing")
	s, err = Open(path)
	require.NoError(t, err)
	defer s.Close()
	assert.Equal(t, want, s.List())
	var _ plugin.Lister = s
}
