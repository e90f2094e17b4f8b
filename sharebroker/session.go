package sharebroker

import (
	"cmp"
	"slices"
	"strings"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/share"
)

// Share session epochs with a meaning of their own (Kafka's
// ShareRequestMetadata): InitialEpoch opens a session, FinalEpoch closes it.
const (
	InitialEpoch int32 = 0
	FinalEpoch   int32 = -1
)

type sessionKey struct{ group, member string }

// session is one entry of the share session cache: the epoch the next
// request must carry, and the partitions the session has fetched (Kafka's
// cachedPartitions), sorted. Requests name their partitions in full and
// never forget one, so the list only grows within a session.
type session struct {
	nextEpoch  int32
	partitions []TopicPartition
}

// addPartitions records tps in the session's sorted partition list.
func (s *session) addPartitions(tps []TopicPartition) {
	for _, tp := range tps {
		i, found := slices.BinarySearchFunc(s.partitions, tp, compareTopicPartition)
		if !found {
			s.partitions = slices.Insert(s.partitions, i, tp)
		}
	}
}

func compareTopicPartition(a, b TopicPartition) int {
	if c := strings.Compare(a.Topic, b.Topic); c != 0 {
		return c
	}
	return cmp.Compare(a.Partition, b.Partition)
}

// PartitionAcks are one partition's acknowledgement batches, ascending,
// as share.SharePartition.Acknowledge takes them.
type PartitionAcks struct {
	TopicPartition
	Batches []share.AckBatch
}

// AckResult is the outcome of one partition's acknowledgements: nil when
// applied. Within a partition it is all or nothing (share rolls back); a
// failed persister write is reported here (the acks were rolled back).
type AckResult struct {
	TopicPartition
	Err error
}

// FetchRequest is one ShareFetch (reference §1.11).
type FetchRequest struct {
	GroupID, MemberID string
	// SessionEpoch 0 opens a session (no acks allowed); FinalEpoch (-1)
	// applies the acks then closes the session, releasing the member's
	// records (no partitions may be fetched); otherwise it must equal the
	// session's next expected epoch, which then increments (wrapping to 1
	// after MaxInt32).
	SessionEpoch int32
	// Partitions are fetched in order (the member's assignment); an unknown
	// topic or partition is a per-partition UNKNOWN_TOPIC_OR_PARTITION. At
	// most MaxPartitionsPerRequest, no duplicates.
	Partitions []TopicPartition
	// MaxRecords is the per-partition acquire size, soft (whole log
	// batches); 0 takes Config.Defaults.BatchSize.
	MaxRecords int32
	// RequestMaxRecords, when above 0, bounds the records the whole
	// request acquires, as Kafka's ShareFetch MaxRecords does
	// (ShareFetchUtils.processFetchResponse passes each partition
	// maxFetchRecords minus what the partitions before it acquired): each
	// partition acquires at most min(MaxRecords, what is left), still
	// soft, and once nothing is left the partitions after it acquire
	// nothing (SharePartition.acquire: maxFetchRecords <= 0), though their
	// share-partitions are still created. 0 leaves MaxRecords per
	// partition (the simulator's share sink, which divides its poll budget
	// itself). At most share.MaxBatchSize.
	RequestMaxRecords int32
	// BatchSize, when above 0, splits each partition's new records into
	// AcquiredRecords entries at log batch boundaries every BatchSize
	// records (share.Fetch.BatchSize, Kafka's SharePartition.createBatches);
	// 0 merges contiguous runs. At most share.MaxBatchSize.
	BatchSize int32
	// Acks are piggy-backed acknowledgements, applied BEFORE acquiring.
	Acks []PartitionAcks
}

// FetchedPartition is one partition of a ShareFetch response: the records
// acquired for the member (their lock expires at LockDeadlineMs), or Err.
type FetchedPartition struct {
	TopicPartition
	Records        []share.AcquiredRecords
	LockDeadlineMs int64
	Err            error
}

// FetchResponse is the answer to a ShareFetch: only partitions with records
// or an error, in request order, and one AckResult per PartitionAcks, in
// request order.
type FetchResponse struct {
	Partitions []FetchedPartition
	Acks       []AckResult
}

// AckRequest is one ShareAcknowledge. SessionEpoch 0 is
// INVALID_SHARE_SESSION_EPOCH (Kafka's
// SharePartitionManager.acknowledgeSessionUpdate: acknowledgements need a
// session); FinalEpoch closes the session after applying the acks.
type AckRequest struct {
	GroupID, MemberID string
	SessionEpoch      int32
	Acks              []PartitionAcks
}

// ShareFetch handles one ShareFetch: the session epoch is checked (and a
// session opened on epoch 0), the piggy-backed acks are applied, then
// records are acquired from each partition, creating its share-partition
// from the persisted state on first use. With FinalEpoch the session is
// closed after the acks instead (see DropConnection for what that
// releases). Request-level errors (bad input, SHARE_SESSION_NOT_FOUND,
// INVALID_SHARE_SESSION_EPOCH, SHARE_SESSION_LIMIT_REACHED) change nothing.
// Lock expiry is the caller's: call Poll(nowMs) first.
func (b *Broker) ShareFetch(nowMs int64, req FetchRequest) (FetchResponse, error) {
	if err := b.checkRequest(nowMs, req.GroupID, req.MemberID, req.SessionEpoch, req.Acks); err != nil {
		return FetchResponse{}, err
	}
	switch {
	case req.SessionEpoch == InitialEpoch && len(req.Acks) > 0:
		return FetchResponse{}, kerr.InvalidRequest.WithMessage("sharebroker: acknowledgements on an initial share fetch")
	case req.SessionEpoch == FinalEpoch && len(req.Partitions) > 0:
		return FetchResponse{}, kerr.InvalidRequest.WithMessage("sharebroker: partitions fetched with the final epoch")
	case req.MaxRecords < 0 || req.MaxRecords > share.MaxBatchSize:
		return FetchResponse{}, kerr.InvalidRequest.WithMessage("sharebroker: max records %d outside [0, %d]", req.MaxRecords, share.MaxBatchSize)
	case req.RequestMaxRecords < 0 || req.RequestMaxRecords > share.MaxBatchSize:
		return FetchResponse{}, kerr.InvalidRequest.WithMessage("sharebroker: request max records %d outside [0, %d]", req.RequestMaxRecords, share.MaxBatchSize)
	case req.BatchSize < 0 || req.BatchSize > share.MaxBatchSize:
		return FetchResponse{}, kerr.InvalidRequest.WithMessage("sharebroker: batch size %d outside [0, %d]", req.BatchSize, share.MaxBatchSize)
	}
	if err := checkPartitions(len(req.Partitions), func(i int) TopicPartition { return req.Partitions[i] }); err != nil {
		return FetchResponse{}, err
	}
	k := sessionKey{req.GroupID, req.MemberID}
	if err := b.checkSession(k, req.SessionEpoch); err != nil {
		return FetchResponse{}, err
	}

	b.lastNowMs = nowMs
	b.advanceSession(k, req.SessionEpoch)
	var resp FetchResponse
	resp.Acks = b.applyAcks(nowMs, k, req.Acks)
	if req.SessionEpoch == FinalEpoch {
		b.closeSession(nowMs, k)
		return resp, nil
	}
	b.sessions[k].addPartitions(req.Partitions)
	left := int64(req.RequestMaxRecords) // what the request may still acquire, when bounded
	for _, tp := range req.Partitions {
		limit := req.MaxRecords
		if req.RequestMaxRecords > 0 {
			if limit == 0 || int64(limit) > left {
				limit = int32(max(left, 0))
			}
		}
		fp := b.fetchPartition(nowMs, k, tp, limit, req.BatchSize, req.RequestMaxRecords > 0 && left <= 0)
		left -= acquiredCount(fp.Records)
		if len(fp.Records) > 0 || fp.Err != nil {
			resp.Partitions = append(resp.Partitions, fp)
		}
	}
	return resp, nil
}

// acquiredCount is the number of records in recs.
func acquiredCount(recs []share.AcquiredRecords) int64 {
	n := int64(0)
	for _, r := range recs {
		n += r.LastOffset - r.FirstOffset + 1
	}
	return n
}

// ShareAcknowledge handles one ShareAcknowledge: the session epoch is
// checked and advanced, the acks applied per partition (all or nothing
// within one), and with FinalEpoch the session then closed.
func (b *Broker) ShareAcknowledge(nowMs int64, req AckRequest) ([]AckResult, error) {
	if err := b.checkRequest(nowMs, req.GroupID, req.MemberID, req.SessionEpoch, req.Acks); err != nil {
		return nil, err
	}
	if req.SessionEpoch == InitialEpoch {
		// SharePartitionManager.acknowledgeSessionUpdate: "ShareAcknowledge
		// Request cannot have epoch as INITIAL_EPOCH (0)", answered before
		// the session is looked up.
		return nil, kerr.InvalidShareSessionEpoch.WithMessage("sharebroker: ShareAcknowledge cannot open a share session (epoch 0)")
	}
	k := sessionKey{req.GroupID, req.MemberID}
	if err := b.checkSession(k, req.SessionEpoch); err != nil {
		return nil, err
	}
	b.lastNowMs = nowMs
	b.advanceSession(k, req.SessionEpoch)
	res := b.applyAcks(nowMs, k, req.Acks)
	if req.SessionEpoch == FinalEpoch {
		b.closeSession(nowMs, k)
	}
	return res, nil
}

// DropConnection is the client connection dropping (Kafka's connection
// disconnect listener): the member's records are released in every cached
// share-partition of the group and its session removed; when it was the
// group's last session, the group's share-partitions are evicted. No
// session is SHARE_SESSION_NOT_FOUND.
func (b *Broker) DropConnection(nowMs int64, group, member string) error {
	if err := b.checkCaller(nowMs, group, member); err != nil {
		return err
	}
	k := sessionKey{group, member}
	if _, ok := b.sessions[k]; !ok {
		return kerr.ShareSessionNotFound.WithMessage("sharebroker: no share session for member %q of group %q", member, group)
	}
	b.lastNowMs = nowMs
	b.closeSession(nowMs, k)
	return nil
}

// checkCaller validates what every session call carries: the time and the
// group and member ids.
func (b *Broker) checkCaller(nowMs int64, group, member string) error {
	if err := b.checkNow(nowMs); err != nil {
		return err
	}
	if err := checkID("group", group); err != nil {
		return err
	}
	return checkID("member", member)
}

// Sessions returns the number of share sessions cached.
func (b *Broker) Sessions() int { return len(b.sessions) }

// checkRequest validates what ShareFetch and ShareAcknowledge share: time,
// ids, the epoch's range and the acks' shape and limits.
func (b *Broker) checkRequest(nowMs int64, group, member string, epoch int32, acks []PartitionAcks) error {
	if err := b.checkCaller(nowMs, group, member); err != nil {
		return err
	}
	if epoch < FinalEpoch {
		return kerr.InvalidRequest.WithMessage("sharebroker: share session epoch %d", epoch)
	}
	total := 0
	for _, pa := range acks {
		total += len(pa.Batches)
	}
	if total > share.MaxAckBatches {
		return kerr.InvalidRequest.WithMessage("sharebroker: %d acknowledgement batches exceed %d", total, share.MaxAckBatches)
	}
	return checkPartitions(len(acks), func(i int) TopicPartition { return acks[i].TopicPartition })
}

// checkPartitions bounds a request's partitions and refuses duplicates.
func checkPartitions(n int, at func(int) TopicPartition) error {
	if n > MaxPartitionsPerRequest {
		return kerr.InvalidRequest.WithMessage("sharebroker: %d partitions exceed %d", n, MaxPartitionsPerRequest)
	}
	dup := func(tp TopicPartition) error {
		return kerr.InvalidRequest.WithMessage("sharebroker: partition %s-%d named twice", tp.Topic, tp.Partition)
	}
	if n <= 8 {
		for i := range n {
			for j := range i {
				if at(i) == at(j) {
					return dup(at(i))
				}
			}
		}
		return nil
	}
	seen := make(map[TopicPartition]struct{}, n) // lookups only
	for i := range n {
		tp := at(i)
		if _, ok := seen[tp]; ok {
			return dup(tp)
		}
		seen[tp] = struct{}{}
	}
	return nil
}

// checkSession answers the session errors of §1.11 without changing the
// cache: epoch 0 needs room unless it replaces the key's session; any other
// epoch needs a session; a non-final epoch must be the expected one.
func (b *Broker) checkSession(k sessionKey, epoch int32) error {
	s, ok := b.sessions[k]
	switch {
	case epoch == InitialEpoch:
		if !ok && len(b.sessions) >= b.cfg.MaxShareSessions {
			return kerr.ShareSessionLimitReached.WithMessage("sharebroker: %d share sessions cached", len(b.sessions))
		}
	case !ok:
		return kerr.ShareSessionNotFound.WithMessage("sharebroker: no share session for member %q of group %q", k.member, k.group)
	case epoch != FinalEpoch && epoch != s.nextEpoch:
		return kerr.InvalidShareSessionEpoch.WithMessage("sharebroker: share session epoch %d, expected %d", epoch, s.nextEpoch)
	}
	return nil
}

// advanceSession applies an epoch checkSession accepted. Epoch 0 on an
// existing session replaces it without releasing its records (Kafka's
// newContext): they come back by lock expiry. FINAL is closeSession's.
func (b *Broker) advanceSession(k sessionKey, epoch int32) {
	s, ok := b.sessions[k]
	switch epoch {
	case InitialEpoch:
		if !ok {
			s = &session{}
			b.sessions[k] = s
			b.groupSessions[k.group]++
		}
		// A new session replaces the old one and its partition list.
		s.nextEpoch, s.partitions = 1, nil
	case FinalEpoch:
	default:
		s.nextEpoch = NextSessionEpoch(s.nextEpoch)
	}
}

// closeSession releases the member's records in the cached share-partitions
// of the session's partitions only (Kafka's releaseSession →
// releaseAcquiredRecords over the session's cachedPartitions): records the
// member acquired in an earlier session that an epoch-0 request replaced,
// in partitions this session never fetched, come back by lock expiry. It
// then removes the session, and when it was the group's last one evicts
// the group's share-partitions (Kafka's share-group listener): they are
// rebuilt from the persister on the next fetch.
func (b *Broker) closeSession(nowMs int64, k sessionKey) {
	for _, tp := range b.sessions[k].partitions {
		e := b.entries[share.Key{Group: k.group, Topic: tp.Topic, Partition: tp.Partition}]
		if e == nil {
			continue
		}
		res, err := e.sp.ReleaseMember(k.member)
		invariant(err == nil, "ReleaseMember failed on a live share-partition")
		b.afterOp(nowMs, e, res.DLQ)
	}
	delete(b.sessions, k)
	b.groupSessions[k.group]--
	if b.groupSessions[k.group] > 0 {
		return
	}
	delete(b.groupSessions, k.group)
	for _, e := range b.entriesOfGroup(k.group) {
		b.evict(e)
	}
}

// applyAcks applies each partition's acks in request order. A partition
// whose share-partition is not cached answers UNKNOWN_TOPIC_OR_PARTITION
// (Kafka's partition cache miss): acknowledgements never create state.
func (b *Broker) applyAcks(nowMs int64, k sessionKey, acks []PartitionAcks) []AckResult {
	if len(acks) == 0 {
		return nil
	}
	out := make([]AckResult, 0, len(acks))
	for _, pa := range acks {
		r := AckResult{TopicPartition: pa.TopicPartition}
		if _, err := b.log(pa.TopicPartition); err != nil {
			r.Err = err
		} else if e := b.entries[share.Key{Group: k.group, Topic: pa.Topic, Partition: pa.Partition}]; e == nil {
			r.Err = kerr.UnknownTopicOrPartition.WithMessage("sharebroker: share-partition %s-%d of group %q is not loaded", pa.Topic, pa.Partition, k.group)
		} else {
			member := k.member
			if b.cfg.Mutants.ShareAckIgnoresOwner && len(pa.Batches) > 0 {
				// The mutant acknowledges on behalf of whoever holds the
				// first record, as a broker that skipped the owner check.
				if r, ok := e.sp.Record(pa.Batches[0].FirstOffset); ok && r.MemberID != "" {
					member = r.MemberID
				}
			}
			res, err := e.sp.Acknowledge(nowMs, member, pa.Batches)
			r.Err = err
			b.afterOp(nowMs, e, res.DLQ)
		}
		out = append(out, r)
	}
	return out
}

// fetchPartition acquires records of tp for the member; exhausted (the
// request's budget is spent) creates the share-partition but acquires
// nothing.
func (b *Broker) fetchPartition(nowMs int64, k sessionKey, tp TopicPartition, maxRecords, batchSize int32, exhausted bool) FetchedPartition {
	fp := FetchedPartition{TopicPartition: tp}
	l, err := b.log(tp)
	if err != nil {
		fp.Err = err
		return fp
	}
	key := share.Key{Group: k.group, Topic: tp.Topic, Partition: tp.Partition}
	e := b.entries[key]
	if e == nil {
		if e, err = b.build(nowMs, key, l); err != nil {
			fp.Err = err
			return fp
		}
	}
	if exhausted {
		return fp
	}
	if maxRecords == 0 {
		maxRecords = e.maxRecords
	}
	f := b.fetchWindow(nowMs, e, l, int64(maxRecords))
	f.BatchSize = batchSize
	res, _, err := e.sp.Acquire(nowMs, k.member, f)
	b.afterOp(nowMs, e, nil)
	fp.Err = err
	if err == nil && len(res.Records) > 0 {
		fp.Records, fp.LockDeadlineMs = res.Records, res.LockDeadlineMs
	}
	return fp
}

// fetchWindow is the log read of one share fetch: the batches from the
// share-partition's next fetch offset (or, while it is uninitialised, from
// where share.auto.offset.reset will start it) on, ascending, until they
// hold at least limit acquirable records (cached AVAILABLE ones, and new
// ones past the cache) or MaxFetchBatches batches. That is share's own
// budget rule (whole batches until the budget is reached) applied by the
// caller, since share's budget is fixed at creation; share still applies
// the in-flight limit and throttling. Counting cached records costs one
// lookup per cached offset in the window, which Acquire scans anyway. The
// result aliases the log; share does not keep it.
func (b *Broker) fetchWindow(nowMs int64, e *entry, l *partitionLog, limit int64) share.Fetch {
	p := e.sp
	from, spso := p.NextFetchOffset(), p.StartOffset()
	cachedEnd := int64(-1) // offsets above it are not cached: new records
	if from == share.UninitializedStartOffset {
		cfg := p.Config()
		switch cfg.AutoOffsetReset {
		case share.ResetEarliest:
			from = l.logStart
		case share.ResetByDuration:
			// Produce and DLQ appends stamp batches with a clock that never
			// goes back, so timestamps ascend and a binary search finds
			// the first batch share would pick.
			since := nowMs - cfg.AutoOffsetResetDurationMs
			from = l.logEnd
			if i := searchTimestamp(l.batches, since); i < len(l.batches) {
				from = l.batches[i].BaseOffset
			}
		default:
			from = l.logEnd
		}
	} else {
		// EndOffset is the last cached offset, or SPSO when nothing at or
		// above SPSO is cached.
		cachedEnd = spso - 1
		if end := p.EndOffset(); end >= spso {
			if _, ok := p.Record(end); ok {
				cachedEnd = end
			}
		}
	}
	from = max(from, l.logStart)
	i := l.firstBatchFrom(from)
	j := i
	for acquirable := int64(0); j < len(l.batches) && j-i < share.MaxFetchBatches && acquirable < limit; j++ {
		bt := l.batches[j]
		lo := max(bt.BaseOffset, from)
		newFrom := max(lo, cachedEnd+1)
		for off := lo; off < newFrom && off <= bt.LastOffset; off++ {
			if r, ok := p.Record(off); ok && r.State == share.Available {
				acquirable++
			}
		}
		if bt.LastOffset >= newFrom {
			acquirable += bt.LastOffset - newFrom + 1
		}
	}
	return share.Fetch{LogStartOffset: l.logStart, HighWatermark: l.logEnd, Batches: l.batches[i:j]}
}
