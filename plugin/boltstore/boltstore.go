// Package boltstore is a durable topology store: one file on disk, kept by
// go.etcd.io/bbolt, that survives a restart. It shows a plugin.Store doing real I/O
// and passes the same conformance suite as the in-memory store.
//
// # Why bbolt
//
// bbolt is the embedded B+tree store etcd runs on: pure Go, one file, serializable
// transactions, copy-on-write pages with two meta pages, so a crash at any point
// leaves the last committed transaction intact. A hand-written append-only file would
// have to solve the same problems itself: torn and partial records at the tail,
// checksums, fsync ordering, and compaction (every set and delete appends, and a
// store that never forgets would grow without bound), plus an index rebuilt by
// replaying the whole file at open. Each is a known source of data-loss bugs; bbolt
// has had years of production and fuzzing on them, keeps its API stable, and is
// maintained by the etcd project. What it costs: one writer at a time (a set or delete
// is a short transaction, far below what a coordinator asks) and an fsync per write
// unless WithNoSync is given.
//
// # Layout
//
// One bucket, "topology-descriptions", maps a group id (its UTF-8 bytes) to one
// record: a versioned JSON object holding the topology epoch and the description.
// encoding/json is deterministic for these types (structs and slices only, no maps),
// readable with bbolt's own CLI, and easy to evolve: the record carries a version.
// A record that does not decode to a valid description is reported as a permanent
// error, never returned.
//
// A second bucket, "fencing-tokens", maps a group id to the highest fencing token a
// fenced call carried (4 bytes, big-endian): Store is a plugin.FencedStore. A token
// is checked and recorded in the same transaction as the row it guards, and is kept
// after the row is deleted.
//
// Like memstore's default, a set at an older epoch than the stored one succeeds and
// keeps the stored description (see package memstore for why).
//
// # What it must never do
//
// It never returns a description it could not fully decode and validate, never keeps
// the caller's description (it stores an encoding), and never holds a transaction
// open across a call.
package boltstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/coordsim/coordsim/plugin"
)

// bucketName is the name of the bucket that holds the rows; tokensBucket holds the
// highest fencing token per group.
const (
	bucketName   = "topology-descriptions"
	tokensBucket = "fencing-tokens"
)

// Option configures Open.
type Option func(*options)

type options struct {
	lockTimeout time.Duration
	noSync      bool
}

// WithLockTimeout bounds how long Open waits for the file lock another process (or
// another open Store on the same file) holds; the default is 5 s. bbolt's own default
// is to wait for ever, which turns a second Open of the same file into a hang.
func WithLockTimeout(d time.Duration) Option { return func(o *options) { o.lockTimeout = d } }

// WithNoSync skips the fsync after each write. Data then survives a process crash
// but not a power loss. For tests and benchmarks only.
func WithNoSync() Option { return func(o *options) { o.noSync = true } }

// Store is a plugin.Store kept in a bbolt file. It is safe for concurrent use: reads
// run in parallel, writes one at a time.
type Store struct {
	// mu guards closed: every call holds it for reading, so Close (which holds it
	// for writing) waits for calls in flight and no call starts after it.
	mu     sync.RWMutex
	closed bool
	db     *bolt.DB
	path   string
}

var _ plugin.FencedStore = (*Store)(nil)

// Open opens (or creates) the store in the file at path.
func Open(path string, opts ...Option) (*Store, error) {
	o := options{lockTimeout: 5 * time.Second}
	for _, opt := range opts {
		opt(&o)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: o.lockTimeout, NoSync: o.noSync})
	if err != nil {
		return nil, fmt.Errorf("boltstore: open %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		if _, err := tx.CreateBucketIfNotExists([]byte(bucketName)); err != nil {
			return err
		}
		_, err := tx.CreateBucketIfNotExists([]byte(tokensBucket))
		return err
	})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("boltstore: open %s: %w", path, err), db.Close())
	}
	return &Store{db: db, path: path}, nil
}

// Path returns the path of the store's file.
func (s *Store) Path() string { return s.path }

// classify marks a bbolt error: size limits and a closed database cannot be cured by
// retrying; anything else (I/O errors, a full disk) may be.
func classify(err error) error {
	switch {
	case errors.Is(err, bolterrors.ErrDatabaseNotOpen):
		return plugin.Permanent(fmt.Errorf("%w: %w", err, plugin.ErrClosed))
	case errors.Is(err, bolterrors.ErrKeyTooLarge), errors.Is(err, bolterrors.ErrValueTooLarge),
		errors.Is(err, bolterrors.ErrMaxSizeReached), errors.Is(err, bolterrors.ErrDatabaseReadOnly),
		errors.Is(err, errCorrupt):
		return plugin.Permanent(err)
	default:
		return plugin.Transient(err)
	}
}

// SetTopology stores d for groupID at topologyEpoch, unless the group has a row at a
// newer epoch, which is kept (the set still succeeds). Setting the same row again
// rewrites identical bytes.
func (s *Store) SetTopology(ctx context.Context, groupID string, topologyEpoch int32, d *plugin.TopologyDescription) error {
	return s.set(ctx, groupID, topologyEpoch, d, -1)
}

// SetTopologyFenced is SetTopology guarded by token (plugin.FencedStore): a token
// below the group's highest fails with plugin.ErrFenced and changes nothing.
func (s *Store) SetTopologyFenced(ctx context.Context, groupID string, topologyEpoch int32, d *plugin.TopologyDescription, token int32) error {
	if err := plugin.CheckToken(token); err != nil {
		return fmt.Errorf("boltstore: set group %q: %w", groupID, err)
	}
	return s.set(ctx, groupID, topologyEpoch, d, token)
}

// set is SetTopology, fenced when token >= 0.
func (s *Store) set(ctx context.Context, groupID string, topologyEpoch int32, d *plugin.TopologyDescription, token int32) error {
	if err := plugin.CheckSetArgs(groupID, topologyEpoch, d); err != nil {
		return fmt.Errorf("boltstore: set group %q epoch %d: %w", groupID, topologyEpoch, err)
	}
	value, err := encode(topologyEpoch, d)
	if err != nil {
		return plugin.Permanent(fmt.Errorf("boltstore: set group %q epoch %d: %w", groupID, topologyEpoch, err))
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return fmt.Errorf("boltstore: set group %q: %w", groupID, plugin.ErrClosed)
	}
	if err := plugin.CheckContext(ctx); err != nil {
		return fmt.Errorf("boltstore: set group %q: %w", groupID, err)
	}
	err = s.db.Update(func(tx *bolt.Tx) error {
		if err := fence(tx, groupID, token); err != nil {
			return err
		}
		b := tx.Bucket([]byte(bucketName))
		if old := b.Get([]byte(groupID)); old != nil {
			// Keep a newer row, but only one that decodes in full: a corrupt row is
			// overwritten rather than blocking the group for ever. The full decode
			// runs only on the rare stale set.
			if oldEpoch, err := decodeEpoch(old); err == nil && oldEpoch > topologyEpoch {
				if _, _, err := decode(old); err == nil {
					return nil
				}
			}
		}
		return b.Put([]byte(groupID), value)
	})
	if errors.Is(err, plugin.ErrFenced) {
		return fmt.Errorf("boltstore: set: %w", err)
	}
	if err != nil {
		return classify(fmt.Errorf("boltstore: set group %q epoch %d: %w", groupID, topologyEpoch, err))
	}
	return nil
}

// fence checks token against the group's highest inside tx and records it; a
// negative token is an unfenced call. A refusal returns plugin.ErrFenced, which
// rolls the transaction back.
func fence(tx *bolt.Tx, groupID string, token int32) error {
	if token < 0 {
		return nil
	}
	b := tx.Bucket([]byte(tokensBucket))
	var highest int32
	old := b.Get([]byte(groupID))
	if len(old) == 4 {
		highest = int32(binary.BigEndian.Uint32(old))
	}
	if err := plugin.Fence(groupID, highest, len(old) == 4, token); err != nil {
		return err
	}
	return b.Put([]byte(groupID), binary.BigEndian.AppendUint32(nil, uint32(token)))
}

// GetTopology returns the description stored for groupID if it is for topologyEpoch,
// and (nil, nil) otherwise. A row that does not decode is a permanent error.
func (s *Store) GetTopology(ctx context.Context, groupID string, topologyEpoch int32) (*plugin.TopologyDescription, error) {
	if err := plugin.CheckGroupID(groupID); err != nil {
		return nil, fmt.Errorf("boltstore: get: %w", err)
	}
	if err := plugin.CheckEpoch(topologyEpoch); err != nil {
		return nil, fmt.Errorf("boltstore: get group %q: %w", groupID, err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, fmt.Errorf("boltstore: get group %q: %w", groupID, plugin.ErrClosed)
	}
	if err := plugin.CheckContext(ctx); err != nil {
		return nil, fmt.Errorf("boltstore: get group %q: %w", groupID, err)
	}
	var value []byte
	err := s.db.View(func(tx *bolt.Tx) error {
		// bbolt's slices are valid only inside the transaction: copy.
		value = append([]byte(nil), tx.Bucket([]byte(bucketName)).Get([]byte(groupID))...)
		return nil
	})
	if err != nil {
		return nil, classify(fmt.Errorf("boltstore: get group %q: %w", groupID, err))
	}
	if len(value) == 0 {
		return nil, nil
	}
	epoch, d, err := decode(value)
	if err != nil {
		return nil, classify(fmt.Errorf("boltstore: get group %q: %w", groupID, err))
	}
	if epoch != topologyEpoch {
		return nil, nil
	}
	return d, nil
}

// List returns every stored (group, epoch) row sorted by group id
// (plugin.Lister). bbolt keeps keys in byte order, which for UTF-8 group
// ids is the string order. A row that fails to decode is skipped.
func (s *Store) List() []plugin.Entry {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil
	}
	var out []plugin.Entry
	_ = s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte(bucketName)).ForEach(func(k, v []byte) error {
			if epoch, err := decodeEpoch(v); err == nil {
				out = append(out, plugin.Entry{GroupID: string(k), TopologyEpoch: epoch})
			}
			return nil
		})
	})
	return out
}

// DeleteTopology removes the group's row, whatever its epoch. Deleting a group with
// nothing stored succeeds.
func (s *Store) DeleteTopology(ctx context.Context, groupID string) error {
	return s.del(ctx, groupID, -1)
}

// DeleteTopologyFenced is DeleteTopology guarded by token (plugin.FencedStore): a
// token below the group's highest fails with plugin.ErrFenced and deletes nothing;
// otherwise the token is kept after the row is gone.
func (s *Store) DeleteTopologyFenced(ctx context.Context, groupID string, token int32) error {
	if err := plugin.CheckToken(token); err != nil {
		return fmt.Errorf("boltstore: delete group %q: %w", groupID, err)
	}
	return s.del(ctx, groupID, token)
}

func (s *Store) del(ctx context.Context, groupID string, token int32) error {
	if err := plugin.CheckGroupID(groupID); err != nil {
		return fmt.Errorf("boltstore: delete: %w", err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return fmt.Errorf("boltstore: delete group %q: %w", groupID, plugin.ErrClosed)
	}
	if err := plugin.CheckContext(ctx); err != nil {
		return fmt.Errorf("boltstore: delete group %q: %w", groupID, err)
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		if err := fence(tx, groupID, token); err != nil {
			return err
		}
		return tx.Bucket([]byte(bucketName)).Delete([]byte(groupID))
	})
	if errors.Is(err, plugin.ErrFenced) {
		return fmt.Errorf("boltstore: delete: %w", err)
	}
	if err != nil {
		return classify(fmt.Errorf("boltstore: delete group %q: %w", groupID, err))
	}
	return nil
}

// Close waits for calls in flight and closes the file; later calls fail with
// plugin.ErrClosed. Closing twice is not an error.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("boltstore: close: %w", err)
	}
	return nil
}
