package txn

import (
	"math"
	"slices"

	"github.com/coordsim/coordsim/kerr"
)

// Result is what an operation returns: the records to append, the response,
// and the markers to write when the operation began completing a
// transaction. An operation that returns an error returns no records.
type Result[R any] struct {
	Records  []Record
	Response R
	Markers  *Markers
}

// Markers are the writes that complete a transaction (Kafka's
// TransactionMarkerChannelManager's WriteTxnMarkers): a commit or abort
// control batch on every data partition of the transaction and the
// completion of the pending transactional offsets of every group. Once they
// are written, the caller calls CompleteTransaction.
type Markers struct {
	TransactionalID string
	ProducerID      int64
	// ProducerEpoch is the epoch the markers carry: the fenced epoch when a
	// fence or a timeout aborts the transaction.
	ProducerEpoch int16
	Commit        bool
	// Partitions are the data partitions; the __consumer_offsets partitions
	// of the transaction are left out (Groups stands for them).
	Partitions []TopicPartition
	Groups     []string
}

// ConsumerOffsetsTopic is the group coordinator's topic, whose partitions
// AddOffsetsToTxn adds to a transaction.
const ConsumerOffsetsTopic = "__consumer_offsets"

// InitProducerIDRequest is InitProducerId with a transactional id. Expected
// producer id and epoch are NoProducerID and NoProducerEpoch unless the
// client (v3+, KIP-360) sends them.
type InitProducerIDRequest struct {
	TransactionalID       string
	TimeoutMs             int32
	ExpectedProducerID    int64
	ExpectedProducerEpoch int16
}

// InitProducerIDResponse is the producer id and epoch the producer is to
// use.
type InitProducerIDResponse struct {
	ProducerID    int64
	ProducerEpoch int16
	// Err is CONCURRENT_TRANSACTIONS when the call fenced an ongoing
	// transaction and began aborting it: unlike a returned error, that
	// answer comes with records (the abort) to append.
	Err error
}

// Limits holds what the operations validate against.
type Limits struct {
	// MaxTimeoutMs is transaction.max.timeout.ms (15 minutes by default).
	MaxTimeoutMs int32
	// TransactionVersion is the cluster's finalized transaction.version
	// (Kafka's txnManager.transactionVersionLevel): the protocol of the
	// aborts the coordinator starts itself, a fence or a timeout.
	TransactionVersion TransactionVersion
}

// validTimeout is TransactionStateManager.validateTransactionTimeoutMs.
func (l Limits) validTimeout(ms int32) bool { return ms > 0 && ms <= l.MaxTimeoutMs }

// InitProducerID is TransactionCoordinator.handleInitProducerId for a
// transactional id. A new id gets a fresh producer id (from newProducerID)
// at epoch 0; a known one gets its epoch bumped, which fences the previous
// producer, or a new producer id once the epoch is exhausted. An ongoing
// transaction is first fenced and aborted, and the caller is answered
// CONCURRENT_TRANSACTIONS so that it retries once the abort is complete.
func (s *Shard) InitProducerID(nowMs int64, l Limits, req InitProducerIDRequest, newProducerID func() int64) (Result[InitProducerIDResponse], error) {
	var res Result[InitProducerIDResponse]
	if req.TransactionalID == "" {
		return res, kerr.InvalidRequest
	}
	if !l.validTimeout(req.TimeoutMs) {
		return res, kerr.InvalidTransactionTimeout
	}
	m, ok := s.Get(req.TransactionalID)
	if !ok {
		m = Metadata{TransactionalID: req.TransactionalID, ProducerID: newProducerID(),
			PrevProducerID: NoProducerID, NextProducerID: NoProducerID, ProducerEpoch: NoProducerEpoch,
			LastProducerEpoch: NoProducerEpoch, TimeoutMs: req.TimeoutMs, State: Empty,
			TxnStartTimestampMs: -1, TxnLastUpdateTimestampMs: nowMs}
	}
	if m.State == PrepareCommit || m.State == PrepareAbort {
		// Completing: Kafka's pending transition answers first, before the
		// producer id is checked (a TV2 producer may already name the id
		// the completion moves to).
		return res, kerr.ConcurrentTransactions
	}
	if req.ExpectedProducerID != NoProducerID && !validProducerID(m, req.ExpectedProducerID, req.ExpectedProducerEpoch) {
		return res, kerr.ProducerFenced
	}
	switch m.State {
	case Ongoing:
		// Fence the producer and abort its transaction; the epoch of the
		// fence is never returned. The retry, once the abort is complete,
		// bumps the epoch again (or rotates the producer id).
		records, mk, err := fenceAndAbort(m, l.TransactionVersion, nowMs)
		if err != nil {
			return res, err
		}
		res.Records, res.Markers = records, mk
		res.Response = InitProducerIDResponse{ProducerID: NoProducerID, ProducerEpoch: NoProducerEpoch, Err: kerr.ConcurrentTransactions}
		return res, nil
	case Empty, CompleteCommit, CompleteAbort:
	default:
		return res, kerr.InvalidTxnState.WithMessage("transactional id %s is in state %s", m.TransactionalID, m.State)
	}
	next := m.clone()
	next.TimeoutMs = req.TimeoutMs
	next.State = Empty
	next.Partitions, next.Groups = nil, nil
	next.TxnStartTimestampMs = -1
	next.TxnLastUpdateTimestampMs = nowMs
	if isEpochExhausted(m.ProducerEpoch) {
		// prepareProducerIdRotation.
		next.PrevProducerID, next.ProducerID = m.ProducerID, newProducerID()
		next.ProducerEpoch, next.LastProducerEpoch = 0, NoProducerEpoch
	} else {
		// prepareIncrementProducerEpoch.
		switch {
		case req.ExpectedProducerID == NoProducerID:
			next.ProducerEpoch, next.LastProducerEpoch = m.ProducerEpoch+1, NoProducerEpoch
		case m.ProducerEpoch == NoProducerEpoch || req.ExpectedProducerEpoch == m.ProducerEpoch:
			next.ProducerEpoch, next.LastProducerEpoch = m.ProducerEpoch+1, m.ProducerEpoch
		case req.ExpectedProducerEpoch == m.LastProducerEpoch:
			// A retry of a bump whose answer was lost: answer it again.
		default:
			return res, kerr.ProducerFenced
		}
	}
	res.Records = []Record{record(next)}
	res.Response = InitProducerIDResponse{ProducerID: next.ProducerID, ProducerEpoch: next.ProducerEpoch}
	return res, nil
}

// validProducerID is TransactionCoordinator.isValidProducerId: a producer
// that names its previous id and epoch is fenced unless the metadata is new,
// the id is the current one (the epoch is checked by the bump), or the id is
// the previous one and its epoch was exhausted (a retried rotation).
func validProducerID(m Metadata, id int64, epoch int16) bool {
	return m.ProducerEpoch == NoProducerEpoch || id == m.ProducerID ||
		(id == m.PrevProducerID && isEpochExhausted(epoch))
}

// prepareFence is TransactionMetadata.prepareFenceProducerEpoch: the epoch
// goes up by one, so the fenced producer's requests fail.
func prepareFence(m Metadata) (Metadata, error) {
	if m.ProducerEpoch == math.MaxInt16 {
		return m, kerr.InvalidProducerEpoch.WithMessage("Cannot fence producer with epoch equal to Short.MaxValue since this would overflow")
	}
	next := m.clone()
	next.ProducerEpoch, next.LastProducerEpoch = m.ProducerEpoch+1, NoProducerEpoch
	return next, nil
}

// fenceAndAbort fences m's producer and begins aborting its ongoing
// transaction, as the coordinator does for a new InitProducerId or a
// timeout (prepareFenceProducerEpoch, then endTransaction from the server
// at its level tv). At TV0-1 the fence bumps the epoch and the abort
// keeps it; at TV2 the fence is never written and the abort bumps the
// epoch, as every TV2 end does. Either way the markers carry one epoch
// more than the producer's.
func fenceAndAbort(m Metadata, tv TransactionVersion, nowMs int64) ([]Record, *Markers, error) {
	fenced, err := prepareFence(m)
	if err != nil {
		return nil, nil, err
	}
	if tv.supportsEpochBump() {
		fenced = m
	}
	records, mk := prepareAbortOrCommit(fenced, PrepareAbort, tv, NoProducerID, nowMs, false)
	return records, mk, nil
}

// prepareAbortOrCommit is TransactionMetadata.prepareAbortOrCommit: it
// writes PrepareCommit or PrepareAbort and returns the markers that
// complete the transaction. A TV2 end bumps the epoch (the previous one
// becomes LastProducerEpoch) and the markers carry the new one;
// nextProducerID is the id the completion moves to when the bump
// exhausted the epochs. An end with no partition added (a TV2 abort of an
// empty transaction) starts now.
func prepareAbortOrCommit(m Metadata, state State, tv TransactionVersion, nextProducerID int64, nowMs int64, noPartitionAdded bool) ([]Record, *Markers) {
	next := m.clone()
	next.State = state
	next.ClientTransactionVersion = tv
	next.NextProducerID = nextProducerID
	if tv.supportsEpochBump() {
		next.ProducerEpoch, next.LastProducerEpoch = m.ProducerEpoch+1, m.ProducerEpoch
	}
	if noPartitionAdded {
		next.TxnStartTimestampMs = nowMs
	}
	next.TxnLastUpdateTimestampMs = nowMs
	mk := &Markers{TransactionalID: next.TransactionalID, ProducerID: next.ProducerID,
		ProducerEpoch: next.ProducerEpoch, Commit: state == PrepareCommit, Groups: slices.Clone(next.Groups)}
	for _, p := range next.Partitions {
		if p.Topic != ConsumerOffsetsTopic {
			mk.Partitions = append(mk.Partitions, p)
		}
	}
	return []Record{record(next)}, mk
}

// current returns the metadata of id if producerID and epoch are its
// current ones: INVALID_PRODUCER_ID_MAPPING for an unknown id or another
// producer id, PRODUCER_FENCED for another epoch.
func (s *Shard) current(id string, producerID int64, epoch int16) (Metadata, error) {
	if id == "" {
		return Metadata{}, kerr.InvalidRequest
	}
	m, ok := s.Get(id)
	switch {
	case !ok, m.ProducerID != producerID:
		return m, kerr.InvalidProducerIDMapping
	case m.ProducerEpoch != epoch:
		return m, kerr.ProducerFenced
	}
	return m, nil
}

// AddPartitions is TransactionCoordinator.handleAddPartitionsToTransaction:
// a client's AddPartitionsToTxn v0-3 or AddOffsetsToTxn (tv TV0), or a
// broker adding the partition of a TV2 produce or TxnOffsetCommit
// (AddPartitionsToTxn v4+ without VerifyOnly, tv TV2). It starts the
// transaction if none is ongoing. group, when not "", is the group whose
// __consumer_offsets partition is among ps (AddOffsetsToTxn). A
// transaction completing is CONCURRENT_TRANSACTIONS before any other check,
// as Kafka's pending transition is: a TV2 producer may already use the
// producer id the completion moves to.
func (s *Shard) AddPartitions(nowMs int64, id string, producerID int64, epoch int16, ps []TopicPartition, group string, tv TransactionVersion) (Result[struct{}], error) {
	var res Result[struct{}]
	if m, ok := s.Get(id); ok && id != "" && (m.State == PrepareCommit || m.State == PrepareAbort) {
		return res, kerr.ConcurrentTransactions
	}
	m, err := s.current(id, producerID, epoch)
	if err != nil {
		return res, err
	}
	switch m.State {
	case Ongoing:
		if containsAll(m.Partitions, ps) && (group == "" || slices.Contains(m.Groups, group)) {
			return res, nil // already in: nothing to write
		}
	case Empty, CompleteCommit, CompleteAbort:
	default:
		return res, kerr.InvalidTxnState.WithMessage("transactional id %s is in state %s", id, m.State)
	}
	next := m.clone()
	if m.State != Ongoing {
		next.TxnStartTimestampMs = nowMs
	}
	next.State = Ongoing
	next.ClientTransactionVersion = tv
	next.Partitions = addPartitions(m.Partitions, ps)
	if group != "" {
		if i, found := slices.BinarySearch(next.Groups, group); !found {
			next.Groups = slices.Insert(next.Groups, i, group)
		}
	}
	next.TxnLastUpdateTimestampMs = nowMs
	res.Records = []Record{record(next)}
	return res, nil
}

// VerifyPartitions is the verify-only path of AddPartitionsToTxn v4+ (KIP-890
// part 1): each partition is answered nil if it is in id's ongoing
// transaction for producerID and epoch, INVALID_TXN_STATE if not. It writes
// nothing.
func (s *Shard) VerifyPartitions(id string, producerID int64, epoch int16, ps []TopicPartition) ([]error, error) {
	m, err := s.current(id, producerID, epoch)
	if err != nil {
		return nil, err
	}
	out := make([]error, len(ps))
	for i, p := range ps {
		if m.State != Ongoing || !m.Contains(p) {
			out[i] = kerr.InvalidTxnState
		}
	}
	return out, nil
}

// EndTxnResponse is what EndTxn answers besides its error: at TV2 (v5+)
// the producer id and epoch the producer continues with; NoProducerID and
// NoProducerEpoch otherwise.
type EndTxnResponse struct {
	ProducerID    int64
	ProducerEpoch int16
}

var noEndTxnResponse = EndTxnResponse{ProducerID: NoProducerID, ProducerEpoch: NoProducerEpoch}

// EndTxn is TransactionCoordinator.handleEndTransaction from a client: it
// writes PrepareCommit or PrepareAbort and returns the markers. tv is the
// client's protocol (EndTxnVersion): TV2 bumps the epoch on every end
// (endTxnV2), TV0-1 keeps it (endTxnV1).
func (s *Shard) EndTxn(nowMs int64, id string, producerID int64, epoch int16, commit bool, tv TransactionVersion, newProducerID func() int64) (Result[EndTxnResponse], error) {
	if tv.supportsEpochBump() {
		return s.endTxnV2(nowMs, id, producerID, epoch, commit, newProducerID)
	}
	res, err := s.endTxnV1(nowMs, id, producerID, epoch, commit)
	res.Response = noEndTxnResponse
	return res, err
}

// endTxnV1 is endTransactionWithTV1. A retry of a completed or completing
// end is answered as Kafka answers it (NONE, CONCURRENT_TRANSACTIONS);
// ending a transaction the other way, or one never begun, is
// INVALID_TXN_STATE.
func (s *Shard) endTxnV1(nowMs int64, id string, producerID int64, epoch int16, commit bool) (Result[EndTxnResponse], error) {
	var res Result[EndTxnResponse]
	m, err := s.current(id, producerID, epoch)
	if err != nil {
		return res, err
	}
	want := PrepareAbort
	if commit {
		want = PrepareCommit
	}
	switch m.State {
	case Ongoing:
		res.Records, res.Markers = prepareAbortOrCommit(m, want, TV0, NoProducerID, nowMs, false)
		return res, nil
	case CompleteCommit, CompleteAbort:
		if (m.State == CompleteCommit) == commit {
			return res, nil
		}
	case PrepareCommit, PrepareAbort:
		if m.State == want {
			return res, kerr.ConcurrentTransactions
		}
	}
	return res, invalidEnd(id, commit, m.State)
}

// endTxnV2 is endTransaction for a TV2 client (KIP-890 part 2). Every end
// bumps the epoch, so the epoch tells a retry from the next end: a request
// at the epoch before the current one is a retry of the end that bumped
// it, answered NONE with the current id and epoch once complete (or
// INVALID_TXN_STATE if it asked the other way); a request at the current
// epoch ends the next transaction, and an abort may end one with no
// partition (from Empty or a completed state). A bump that exhausts the
// epochs allocates the producer id the completion moves to, at epoch 0.
// The answer carries the id and epoch the completion leaves.
func (s *Shard) endTxnV2(nowMs int64, id string, producerID int64, epoch int16, commit bool, newProducerID func() int64) (Result[EndTxnResponse], error) {
	res := Result[EndTxnResponse]{Response: noEndTxnResponse}
	if id == "" {
		return res, kerr.InvalidRequest
	}
	m, ok := s.Get(id)
	switch {
	case !ok:
		return res, kerr.InvalidProducerIDMapping
	case m.State == PrepareCommit || m.State == PrepareAbort:
		// Kafka's pending transition (the markers being written) is
		// checked first.
		return res, kerr.ConcurrentTransactions
	}
	// A retry after the bump exhausted the epochs names the previous
	// producer id at its last epoch.
	retryOnOverflow := m.PrevProducerID == producerID && epoch == math.MaxInt16-1 && m.ProducerEpoch == 0
	retryOnEpochBump := m.ProducerEpoch == epoch+1
	isRetry := retryOnEpochBump || retryOnOverflow
	validEpoch := epoch == m.ProducerEpoch
	if m.State == CompleteCommit || m.State == CompleteAbort {
		validEpoch = validEpoch || isRetry
	}
	switch {
	case m.ProducerID != producerID && !retryOnOverflow:
		return res, kerr.InvalidProducerIDMapping
	case !validEpoch:
		return res, kerr.ProducerFenced
	}
	end := func(state State, noPartitionAdded bool) (Result[EndTxnResponse], error) {
		next := NoProducerID
		if isEpochExhausted(m.ProducerEpoch) {
			next = newProducerID()
		}
		res.Records, res.Markers = prepareAbortOrCommit(m, state, TV2, next, nowMs, noPartitionAdded)
		res.Response = EndTxnResponse{ProducerID: m.ProducerID, ProducerEpoch: m.ProducerEpoch + 1}
		if next != NoProducerID {
			res.Response = EndTxnResponse{ProducerID: next, ProducerEpoch: 0}
		}
		return res, nil
	}
	switch m.State {
	case Ongoing:
		if commit {
			return end(PrepareCommit, false)
		}
		return end(PrepareAbort, false)
	case CompleteCommit:
		switch {
		case commit && isRetry:
			res.Response = EndTxnResponse{ProducerID: m.ProducerID, ProducerEpoch: m.ProducerEpoch}
			return res, nil
		case !commit && !isRetry:
			return end(PrepareAbort, true)
		}
	case CompleteAbort:
		switch {
		case !commit && isRetry:
			res.Response = EndTxnResponse{ProducerID: m.ProducerID, ProducerEpoch: m.ProducerEpoch}
			return res, nil
		case !commit:
			return end(PrepareAbort, true)
		}
	case Empty:
		if !commit {
			return end(PrepareAbort, true)
		}
	}
	return res, invalidEnd(id, commit, m.State)
}

func invalidEnd(id string, commit bool, state State) error {
	return kerr.InvalidTxnState.WithMessage("TransactionalId %s: cannot %s a transaction in state %s", id, endVerb(commit), state)
}

func endVerb(commit bool) string {
	if commit {
		return "commit"
	}
	return "abort"
}

// CompleteTransaction writes CompleteCommit or CompleteAbort once the
// markers of a PrepareCommit or PrepareAbort at producerID and epoch are
// written (Kafka's TransactionMarkerChannelManager.tryAppendToLog). The
// partitions and groups are cleared.
func (s *Shard) CompleteTransaction(nowMs int64, id string, producerID int64, epoch int16) (Result[State], error) {
	var res Result[State]
	m, ok := s.Get(id)
	if !ok || m.ProducerID != producerID || m.ProducerEpoch != epoch || (m.State != PrepareCommit && m.State != PrepareAbort) {
		return res, kerr.InvalidTxnState.WithMessage("TransactionalId %s has no transaction completing at producer id %d and epoch %d", id, producerID, epoch)
	}
	next := m.clone()
	next.State = CompleteAbort
	if m.State == PrepareCommit {
		next.State = CompleteCommit
	}
	if m.ClientTransactionVersion.supportsEpochBump() && m.NextProducerID != NoProducerID {
		// prepareComplete: the bump exhausted the epochs; the producer
		// continues under the id allocated for it, at epoch 0.
		next.PrevProducerID, next.ProducerID, next.ProducerEpoch = m.ProducerID, m.NextProducerID, 0
	}
	next.NextProducerID = NoProducerID
	next.Partitions, next.Groups = nil, nil
	next.TxnLastUpdateTimestampMs = nowMs
	res.Records = []Record{record(next)}
	res.Response = next.State
	return res, nil
}

// TimedOut returns the ids whose ongoing transaction has outlived its
// timeout at nowMs (TransactionStateManager.timedOutTransactions), sorted.
func (s *Shard) TimedOut(nowMs int64) []string {
	var out []string
	for _, id := range s.IDs() {
		m := s.txns[id]
		if m.State == Ongoing && m.TxnStartTimestampMs+int64(m.TimeoutMs) < nowMs {
			out = append(out, id)
		}
	}
	return out
}

// AbortTimedOut is TransactionCoordinator.abortTimedOutTransactions for one
// id: the producer is fenced (its epoch bumped) and the transaction
// aborted at the new epoch. An id that is no longer timed out writes
// nothing.
func (s *Shard) AbortTimedOut(nowMs int64, l Limits, id string) (Result[struct{}], error) {
	var res Result[struct{}]
	m, ok := s.Get(id)
	if !ok || m.State != Ongoing || m.TxnStartTimestampMs+int64(m.TimeoutMs) >= nowMs {
		return res, nil
	}
	records, mk, err := fenceAndAbort(m, l.TransactionVersion, nowMs)
	if err != nil {
		return res, err
	}
	res.Records, res.Markers = records, mk
	return res, nil
}
