// Package memstore is coordsim's reference topology store: it keeps one topology
// description per streams group in memory, like Kafka's
// InMemoryTopologyDescriptionPlugin, and is safe for concurrent use. The simulator's
// shared store is a memstore behind a faultstore; tests use it directly.
//
// # Sets at an older epoch
//
// Kafka's in-memory plugin keeps whatever was written last. A Store here, by default,
// keeps the newest epoch instead (NewestEpochWins): a set at an older epoch than the
// stored one succeeds and changes nothing. The reason is a slow push: a member pushes
// epoch 3, a newer member pushes epoch 4 and it is stored, then the epoch-3 call lands.
// Keeping epoch 3 would make getTopology(4) answer "not stored" although the
// coordinator recorded StoredDescriptionTopologyEpoch=4 (stored epochs never move
// back), and the group would stay NOT_STORED until its epoch advances. Reporting
// success is right because the coordinator ignores an older epoch anyway. A group
// recreated at a lower epoch is unaffected: its old row was deleted before its
// tombstone. WithPolicy(LastWriteWins) gives Kafka's behaviour, for simulations that
// want to show the difference.
//
// # Fencing
//
// A Store is a plugin.FencedStore: it keeps the highest fencing token seen per group,
// also after a delete (the map of tokens only grows, by one int32 per group ever
// fenced), and refuses a fenced set or delete with a lower token with plugin.ErrFenced.
// The plain methods neither check nor record tokens.
//
// # What it must never do
//
// It never retains a caller's description or hands out its own (it copies both ways),
// never iterates a map where the order can reach an output (List sorts), and never
// blocks on anything but its mutex.
package memstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/coordsim/coordsim/plugin"
)

// Policy says what a set at an older epoch than the stored one does.
type Policy uint8

// The policies.
const (
	// NewestEpochWins keeps the stored description when a set is for an older epoch;
	// the set still succeeds. The default.
	NewestEpochWins Policy = iota
	// LastWriteWins stores every set, whatever its epoch, like Kafka's
	// InMemoryTopologyDescriptionPlugin.
	LastWriteWins
)

// String returns the policy's name.
func (p Policy) String() string {
	switch p {
	case NewestEpochWins:
		return "newest-epoch-wins"
	case LastWriteWins:
		return "last-write-wins"
	default:
		return fmt.Sprintf("Policy(%d)", uint8(p))
	}
}

// Option configures a Store.
type Option func(*Store)

// WithPolicy sets what a set at an older epoch does (NewestEpochWins by default).
func WithPolicy(p Policy) Option { return func(s *Store) { s.policy = p } }

// Entry is one stored row, as List reports it (plugin.Entry).
type Entry = plugin.Entry

type row struct {
	epoch int32
	d     *plugin.TopologyDescription
}

// Store is an in-memory plugin.Store. The zero value is not usable; call New.
type Store struct {
	policy Policy

	mu     sync.Mutex
	rows   map[string]row   // nil once closed
	tokens map[string]int32 // the highest fencing token per group; kept after a delete
	closed bool
}

var _ plugin.FencedStore = (*Store)(nil)

// New returns an empty Store.
func New(opts ...Option) *Store {
	s := &Store{rows: make(map[string]row), tokens: make(map[string]int32)}
	for _, o := range opts {
		o(s)
	}
	return s
}

// SetTopology stores a copy of d for groupID at topologyEpoch, replacing what the
// group had at the same or an older epoch. A set at an older epoch follows the
// Store's Policy. Bad arguments fail permanently (plugin.CheckSetArgs); a context
// already done fails transiently. Neither changes anything.
func (s *Store) SetTopology(ctx context.Context, groupID string, topologyEpoch int32, d *plugin.TopologyDescription) error {
	return s.set(ctx, groupID, topologyEpoch, d, -1)
}

// SetTopologyFenced is SetTopology guarded by token (plugin.FencedStore): a token
// below the group's highest fails with plugin.ErrFenced and changes nothing.
func (s *Store) SetTopologyFenced(ctx context.Context, groupID string, topologyEpoch int32, d *plugin.TopologyDescription, token int32) error {
	if err := plugin.CheckToken(token); err != nil {
		return fmt.Errorf("memstore: set group %q: %w", groupID, err)
	}
	return s.set(ctx, groupID, topologyEpoch, d, token)
}

// set is SetTopology, fenced when token >= 0.
func (s *Store) set(ctx context.Context, groupID string, topologyEpoch int32, d *plugin.TopologyDescription, token int32) error {
	if err := plugin.CheckContext(ctx); err != nil {
		return fmt.Errorf("memstore: set group %q: %w", groupID, err)
	}
	if err := plugin.CheckSetArgs(groupID, topologyEpoch, d); err != nil {
		return fmt.Errorf("memstore: set group %q epoch %d: %w", groupID, topologyEpoch, err)
	}
	c := d.Clone() // outside the lock: it is the expensive part
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("memstore: set group %q: %w", groupID, plugin.ErrClosed)
	}
	if err := s.fence(groupID, token); err != nil {
		return fmt.Errorf("memstore: set: %w", err)
	}
	if old, ok := s.rows[groupID]; ok && old.epoch > topologyEpoch && s.policy == NewestEpochWins {
		return nil
	}
	s.rows[groupID] = row{epoch: topologyEpoch, d: c}
	return nil
}

// fence checks token against the group's highest and records it; a negative
// token is an unfenced call. The caller holds the lock.
func (s *Store) fence(groupID string, token int32) error {
	if token < 0 {
		return nil
	}
	highest, ok := s.tokens[groupID]
	if err := plugin.Fence(groupID, highest, ok, token); err != nil {
		return err
	}
	s.tokens[groupID] = token
	return nil
}

// GetTopology returns a copy of the description stored for groupID if it is for
// topologyEpoch, and (nil, nil) otherwise.
func (s *Store) GetTopology(ctx context.Context, groupID string, topologyEpoch int32) (*plugin.TopologyDescription, error) {
	if err := plugin.CheckContext(ctx); err != nil {
		return nil, fmt.Errorf("memstore: get group %q: %w", groupID, err)
	}
	if err := plugin.CheckGroupID(groupID); err != nil {
		return nil, fmt.Errorf("memstore: get: %w", err)
	}
	if err := plugin.CheckEpoch(topologyEpoch); err != nil {
		return nil, fmt.Errorf("memstore: get group %q: %w", groupID, err)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, fmt.Errorf("memstore: get group %q: %w", groupID, plugin.ErrClosed)
	}
	r, ok := s.rows[groupID]
	s.mu.Unlock()
	if !ok || r.epoch != topologyEpoch {
		return nil, nil
	}
	// Stored descriptions are never mutated (a set replaces the row), so cloning
	// outside the lock is safe.
	return r.d.Clone(), nil
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
		return fmt.Errorf("memstore: delete group %q: %w", groupID, err)
	}
	return s.del(ctx, groupID, token)
}

func (s *Store) del(ctx context.Context, groupID string, token int32) error {
	if err := plugin.CheckContext(ctx); err != nil {
		return fmt.Errorf("memstore: delete group %q: %w", groupID, err)
	}
	if err := plugin.CheckGroupID(groupID); err != nil {
		return fmt.Errorf("memstore: delete: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("memstore: delete group %q: %w", groupID, plugin.ErrClosed)
	}
	if err := s.fence(groupID, token); err != nil {
		return fmt.Errorf("memstore: delete: %w", err)
	}
	delete(s.rows, groupID)
	return nil
}

// Close drops every row; later calls fail with plugin.ErrClosed. Closing twice is
// not an error.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.rows, s.tokens = nil, nil
	return nil
}

// Len returns the number of groups with a stored description.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.rows)
}

// List returns the stored (group, epoch) pairs sorted by group id, so that the
// simulator can check "the store holds no row of a group that no longer exists" and
// print it deterministically.
func (s *Store) List() []Entry {
	s.mu.Lock()
	out := make([]Entry, 0, len(s.rows))
	for g, r := range s.rows {
		out = append(out, Entry{GroupID: g, TopologyEpoch: r.epoch})
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.GroupID, b.GroupID) })
	return out
}
