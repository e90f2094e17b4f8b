package wire

import (
	"sync"
	"time"

	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Incremental fetch sessions (KIP-227), as Kafka's FetchManager and
// FetchSessionCache keep them, one cache per broker. A full request
// (session epoch 0) creates a session holding its partitions, when a slot
// is free, and is answered in full with the new SessionID; an incremental
// request (the session's id and its next epoch) names only the partitions
// whose fetch position changed, plus the ones to forget, and its answer
// holds only the partitions with something to say (FetchSession's
// CachedPartition.maybeUpdateResponseData: records, a new high watermark or
// log start offset, or an error). Epoch -1 closes the session and is served
// without one; epoch 0 naming a session closes it and opens a new one.

const (
	// KIP-227's session epochs (FetchMetadata.INITIAL_EPOCH, FINAL_EPOCH):
	// both mark a full request.
	fetchInitialEpoch = 0
	fetchFinalEpoch   = -1
	// maxFetchSessions is max.incremental.fetch.session.cache.slots.
	maxFetchSessions = 1000
	// fetchSessionEviction is min.incremental.fetch.session.eviction.ms: a
	// full cache evicts a session idle this long to make room.
	fetchSessionEviction = 120 * time.Second
)

// fetchKey names one partition of a fetch as the request names it: by
// topic name (v7-12) or id (v13+).
type fetchKey struct {
	topic     string
	id        [16]byte
	partition int32
}

// fetchPart is one partition a fetch reads and from where.
type fetchPart struct {
	fetchKey
	offset   int64
	maxBytes int32
	// currentLeaderEpoch is the request's CurrentLeaderEpoch (v9+; -1,
	// none, before), which a session keeps with the position as Kafka's
	// CachedPartition does.
	currentLeaderEpoch int32
}

// cachedPart is a session's partition: its fetch position and what the
// last answer said of it (-1: nothing yet, or an error since).
type cachedPart struct {
	fetchPart
	hwm, logStart int64
}

// mustRespond reports whether an incremental answer includes p, and
// records what it says (CachedPartition.maybeUpdateResponseData).
func (c *cachedPart) mustRespond(p *kmsg.FetchResponseTopicPartition) bool {
	must := len(p.RecordBatches) > 0
	if c.hwm != p.HighWatermark {
		must, c.hwm = true, p.HighWatermark
	}
	if c.logStart != p.LogStartOffset {
		must, c.logStart = true, p.LogStartOffset
	}
	if p.ErrorCode != 0 {
		must, c.hwm = true, -1 // re-sent once the error goes away
	}
	return must
}

// fetchSession is one client's session on one broker.
type fetchSession struct {
	mu       sync.Mutex // held while a request uses the session
	id       int32
	epoch    int32 // the epoch the next request must carry
	parts    []*cachedPart
	lastUsed time.Time
}

// update applies an incremental request: changed and new partitions, then
// the forgotten ones. It returns every partition of the session.
func (s *fetchSession) update(changed []fetchPart, forgotten []fetchKey) []fetchPart {
	index := make(map[fetchKey]*cachedPart, len(s.parts))
	for _, c := range s.parts {
		index[c.fetchKey] = c
	}
	for _, p := range changed {
		if c := index[p.fetchKey]; c != nil {
			c.fetchPart = p
			continue
		}
		c := &cachedPart{fetchPart: p, hwm: -1, logStart: -1}
		index[p.fetchKey] = c
		s.parts = append(s.parts, c)
	}
	gone := make(map[fetchKey]bool, len(forgotten))
	for _, k := range forgotten {
		gone[k] = true
	}
	kept := s.parts[:0]
	for _, c := range s.parts {
		if !gone[c.fetchKey] {
			kept = append(kept, c)
		}
	}
	clear(s.parts[len(kept):])
	s.parts = kept
	out := make([]fetchPart, len(s.parts))
	for i, c := range s.parts {
		out[i] = c.fetchPart
	}
	return out
}

// fetchSessions is one broker's session cache.
type fetchSessions struct {
	mu   sync.Mutex
	next int32
	byID map[int32]*fetchSession
}

// remove closes session id, if it exists.
func (c *fetchSessions) remove(id int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.byID, id)
}

// create opens an empty session, or returns nil when every slot is held
// by a session used within fetchSessionEviction (the request is then
// served without one, as Kafka's FetchSessionCache.maybeCreateSession).
func (c *fetchSessions) create(now time.Time) *fetchSession {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byID == nil {
		c.byID = make(map[int32]*fetchSession)
	}
	if len(c.byID) >= maxFetchSessions {
		var oldest *fetchSession
		for _, s := range c.byID {
			if oldest == nil || s.lastUsed.Before(oldest.lastUsed) || (s.lastUsed.Equal(oldest.lastUsed) && s.id < oldest.id) {
				oldest = s
			}
		}
		if now.Sub(oldest.lastUsed) < fetchSessionEviction {
			return nil
		}
		delete(c.byID, oldest.id)
	}
	for {
		c.next++
		if c.next <= 0 {
			c.next = 1
		}
		if c.byID[c.next] == nil {
			break
		}
	}
	s := &fetchSession{id: c.next, epoch: 1, lastUsed: now}
	c.byID[s.id] = s
	return s
}

// incremental looks session id up for a request at epoch and advances its
// epoch: FETCH_SESSION_ID_NOT_FOUND or INVALID_FETCH_SESSION_EPOCH when it
// cannot serve it (FetchManager.newContext).
func (c *fetchSessions) incremental(id, epoch int32, now time.Time) (*fetchSession, int16) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.byID[id]
	switch {
	case s == nil:
		return nil, fkerr.FetchSessionIDNotFound.Code
	case s.epoch != epoch:
		return nil, fkerr.InvalidFetchSessionEpoch.Code
	}
	s.epoch = nextFetchEpoch(s.epoch)
	s.lastUsed = now
	return s, 0
}

// nextFetchEpoch is FetchMetadata.nextEpoch: 1 after the maximum.
func nextFetchEpoch(e int32) int32 {
	if e == 1<<31-1 {
		return 1
	}
	return e + 1
}
