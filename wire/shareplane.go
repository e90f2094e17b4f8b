package wire

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"time"

	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/share"
	"github.com/coordsim/coordsim/sharebroker"
)

// sharePlane wraps the one sharebroker.Broker of the cluster (the
// partition leaders' share-group side: sessions, share-partitions,
// acquisition locks) for concurrent connections. sharebroker counts
// records rather than storing them, so every batch the data plane appends
// is mirrored into it (same partition, same record count, same order, under
// the data plane's lock): offsets agree, and a ShareFetch answers the bytes
// of the data-plane batches that hold the acquired offsets.
//
// Time is the wall clock in milliseconds, never going back; lock expiries
// are applied (Poll) before every share request rather than on a timer, so
// an expired lock is seen by the next fetch of any member.
type sharePlane struct {
	mu     sync.Mutex
	b      *sharebroker.Broker
	lastMs int64
	shifts map[sessionKey]int32
	// parts is each share session's partitions in the order they joined it
	// (Kafka's cachedPartitions, an insertion-ordered collection): an
	// incremental ShareFetch names only the partitions it adds, or
	// acknowledges, and fetches all of them (sessionPartitions).
	parts map[sessionKey][]sharebroker.TopicPartition
}

func newSharePlane(cfg sharebroker.Config) (*sharePlane, error) {
	b, err := sharebroker.New(cfg)
	if err != nil {
		return nil, err
	}
	return &sharePlane{b: b, shifts: make(map[sessionKey]int32), parts: make(map[sessionKey][]sharebroker.TopicPartition)}, nil
}

// now returns the wall clock in ms, never below the last value, and polls
// the broker's timers up to it. The caller holds mu.
func (s *sharePlane) now() int64 {
	ms := max(time.Now().UnixMilli(), s.lastMs)
	s.lastMs = ms
	if _, err := s.b.Poll(ms); err != nil {
		// Poll fails only on a time going back, which now prevents.
		panic("wire: sharebroker poll: " + err.Error())
	}
	return ms
}

// with runs fn on the broker at the current time.
func (s *sharePlane) with(fn func(b *sharebroker.Broker, nowMs int64)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(s.b, s.now())
}

// createTopic mirrors a new data topic.
func (s *sharePlane) createTopic(name string, partitions int32) error {
	var err error
	s.with(func(b *sharebroker.Broker, _ int64) { err = b.CreateTopic(name, partitions) })
	return err
}

// createPartitions mirrors a data topic grown to partitions
// (sharebroker.CreatePartitions).
func (s *sharePlane) createPartitions(name string, partitions int32) error {
	var err error
	s.with(func(b *sharebroker.Broker, _ int64) { err = b.CreatePartitions(name, partitions) })
	return err
}

// deleteTopic mirrors a deleted data topic: every share group's state of it
// goes (sharebroker.DeleteTopic).
func (s *sharePlane) deleteTopic(name string) error {
	var err error
	s.with(func(b *sharebroker.Broker, _ int64) { err = b.DeleteTopic(name) })
	return err
}

// appended mirrors one data-plane batch of records records at base.
func (s *sharePlane) appended(topic string, partition int32, base int64, records int32) error {
	var err error
	s.with(func(b *sharebroker.Broker, nowMs int64) {
		var batch share.LogBatch
		batch, err = b.Produce(nowMs, sharebroker.TopicPartition{Topic: topic, Partition: partition}, records)
		if err == nil && batch.BaseOffset != base {
			panic("wire: the share plane's log diverged from the data plane's")
		}
	})
	return err
}

// trimmed mirrors a data-plane log start advance (retention): every share
// group archives the AVAILABLE records below it (sharebroker.DeleteRecords).
func (s *sharePlane) trimmed(topic string, partition int32, logStart int64) {
	s.with(func(b *sharebroker.Broker, nowMs int64) {
		if err := b.DeleteRecords(nowMs, sharebroker.TopicPartition{Topic: topic, Partition: partition}, logStart); err != nil {
			panic("wire: the share plane's log diverged from the data plane's: " + err.Error())
		}
	})
}

// sessionKey names one share session in sharebroker: kgo (like Kafka's
// clients) opens one session per partition leader, and sharebroker keeps
// one session per (group, member) for the whole cluster, so the member id
// is qualified with the broker the session lives on.
type sessionKey struct {
	group, member string
	node          int32
}

func (k sessionKey) brokerMember() string { return fmt.Sprintf("%s@%d", k.member, k.node) }

// epochShift counts the extra ShareFetch calls the endpoint made on a
// session while a client's fetch waited for records (each advances the
// session's epoch in sharebroker): the client's epoch plus the shift is
// the broker's.
func (s *sharePlane) shift(k sessionKey, epoch int32) int32 {
	if epoch < 0 {
		return epoch // the final epoch is never shifted
	}
	e := epoch
	for range s.shifts[k] {
		e = sharebroker.NextSessionEpoch(e)
	}
	return e
}

// sessionPartitions is what a ShareFetch at epoch fetches: the session's
// partitions after the request's are added and the forgotten ones removed
// (Kafka's ShareSession.update); an initial request starts the list anew.
// The caller stores it in parts once the fetch succeeds.
func (s *sharePlane) sessionPartitions(k sessionKey, epoch int32, named, forgotten []sharebroker.TopicPartition) []sharebroker.TopicPartition {
	var out []sharebroker.TopicPartition
	if epoch != sharebroker.InitialEpoch {
		out = slices.Clone(s.parts[k])
	}
	// Sets, not scans: a request's partition lists are bounded only by the
	// frame's size (sharebroker refuses an oversized session afterwards).
	in := make(map[sharebroker.TopicPartition]struct{}, len(out)+len(named))
	for _, tp := range out {
		in[tp] = struct{}{}
	}
	for _, tp := range named {
		if _, ok := in[tp]; !ok {
			in[tp] = struct{}{}
			out = append(out, tp)
		}
	}
	if len(forgotten) == 0 {
		return out
	}
	gone := make(map[sharebroker.TopicPartition]struct{}, len(forgotten))
	for _, tp := range forgotten {
		gone[tp] = struct{}{}
	}
	return slices.DeleteFunc(out, func(tp sharebroker.TopicPartition) bool { _, ok := gone[tp]; return ok })
}

// dropSessions is a connection closing (Kafka's connection disconnect
// listener): every share session opened on it releases its member's
// records.
func (s *sharePlane) dropSessions(keys []sessionKey) {
	s.with(func(b *sharebroker.Broker, nowMs int64) {
		for _, k := range keys {
			delete(s.shifts, k)
			delete(s.parts, k)
			_ = b.DropConnection(nowMs, k.group, k.brokerMember()) // no session left is fine
		}
	})
}

// lockDurationMs is the acquisition lock timeout ShareFetch and
// ShareAcknowledge answers report: the group's lock duration, which its
// records are locked for (sharebroker.RecordLockDurationMs), not the
// broker default.
func (s *sharePlane) lockDurationMs(group string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.RecordLockDurationMs(group)
}

// shareSession is the session a ShareFetch or ShareAcknowledge names and
// its group's lock duration, which the response carries as
// AcquisitionLockTimeoutMs; code is INVALID_REQUEST, and the request goes
// no further, when GroupID or MemberID is null.
func (r *request) shareSession(groupID, memberID *string) (key sessionKey, lockTimeoutMs int32, code int16) {
	if groupID == nil || memberID == nil {
		return sessionKey{}, 0, fkerr.InvalidRequest.Code
	}
	key = sessionKey{*groupID, *memberID, r.b.node}
	return key, int32(r.cl.share.lockDurationMs(key.group)), 0
}

// sharePartitionIn is one partition a ShareFetch or ShareAcknowledge
// request names, its acknowledgement batches validated and converted
// (wireAckBatches); each handler adapts its own kmsg types to it.
type sharePartitionIn struct {
	topicID   [16]byte
	partition int32
	acked     bool // the request carries acknowledgement batches for it
	acks      []share.AckBatch
	badAcks   bool // validateAckBatches refused them: INVALID_REQUEST, none applied
}

// newSharePartitionIn is one requested partition and its batches.
func newSharePartitionIn[B ~wireAckBatch](topicID [16]byte, partition int32, batches []B, version int16, isRenewAck bool) sharePartitionIn {
	acks, ok := wireAckBatches(batches, version, isRenewAck)
	return sharePartitionIn{topicID: topicID, partition: partition, acked: len(batches) > 0, acks: acks, badAcks: !ok}
}

// translateShare is the translation ShareFetch and ShareAcknowledge share:
// it resolves each partition's topic id and checks that this broker leads
// the partition (partitionCode). Between the two, in the order of Kafka's
// KafkaApis.handleAcknowledgements (unknown topic id, then
// validateAcknowledgementBatches, then the metadata check), a partition of
// a known topic whose batches validateAckBatches refused goes to
// refuseAcks and loses its acknowledgements; it goes no further when
// refuseAcks says so (ShareAcknowledge, which has nothing else to do with
// it). A partition that cannot go to sharebroker goes to refuse with its
// topic's code and its own; the others are wanted in out and returned,
// with the acknowledgements of those that carry any.
func translateShare(r *request, out *sharePartitions, in []sharePartitionIn,
	refuse func(p sharePartitionIn, topicCode, code int16),
	refuseAcks func(p sharePartitionIn) (done bool)) (tps []sharebroker.TopicPartition, acks []sharebroker.PartitionAcks) {
	for _, p := range in {
		t, code := r.cl.resolveTopic("", p.topicID, true)
		if code == 0 && p.badAcks {
			if refuseAcks(p) {
				continue
			}
			p.acked, p.acks = false, nil
		}
		if pcode := r.cl.partitionCode(r.b, t, code, p.partition); pcode != 0 {
			refuse(p, code, pcode)
			continue
		}
		tp := sharebroker.TopicPartition{Topic: t.name, Partition: p.partition}
		out.want(p.topicID, tp)
		tps = append(tps, tp)
		if p.acked {
			acks = append(acks, sharebroker.PartitionAcks{TopicPartition: tp, Batches: p.acks})
		}
	}
	return tps, acks
}

// sharePartitions gathers one share response's partitions, by topic id.
type sharePartitions struct {
	r        *request
	order    []shareTP
	results  map[shareTP]*sharePartitionResult
	acquired int
}

type shareTP struct {
	id [16]byte
	p  int32
}

type sharePartitionResult struct {
	name     string
	code     int16
	msg      *string
	ackCode  int16
	ackMsg   *string
	records  []byte
	acquired []share.AcquiredRecords
}

func newSharePartitions(r *request) *sharePartitions {
	return &sharePartitions{r: r, results: make(map[shareTP]*sharePartitionResult)}
}

func (s *sharePartitions) get(id [16]byte, p int32) *sharePartitionResult {
	k := shareTP{id, p}
	res := s.results[k]
	if res == nil {
		res = &sharePartitionResult{}
		s.results[k] = res
		s.order = append(s.order, k)
	}
	return res
}

func (s *sharePartitions) fail(id [16]byte, p int32, code int16) { s.get(id, p).code = code }

// failAck sets a partition's acknowledgement error (ShareFetch's
// AcknowledgeErrorCode for piggy-backed acknowledgements).
func (s *sharePartitions) failAck(id [16]byte, p int32, code int16) { s.get(id, p).ackCode = code }

// currentLeader is a partition's CurrentLeader: set, as Kafka's
// processShareFetchResponse and processShareAcknowledgeResponse set it,
// only for NOT_LEADER_OR_FOLLOWER, with the leader's endpoint in the
// response's NodeEndpoints; Kafka's default (-1, -1) otherwise.
func (s *sharePartitions) currentLeader(code int16, p int32) (leader, epoch int32) {
	if code != fkerr.NotLeaderForPartition.Code {
		return -1, -1
	}
	return s.r.cl.leaderOf(p), 0
}

// leaderEndpoints lists, by node id, the brokers some partition's
// CurrentLeader names.
func (s *sharePartitions) leaderEndpoints() []*broker {
	var out []*broker
	seen := map[int32]bool{}
	for _, k := range s.order {
		if leader, _ := s.currentLeader(s.results[k].code, k.p); leader >= 0 && !seen[leader] {
			seen[leader] = true
			out = append(out, s.r.cl.brokers[leader])
		}
	}
	slices.SortFunc(out, func(a, b *broker) int { return cmp.Compare(a.node, b.node) })
	return out
}

// wireNodeEndpoint is a NodeEndpoints entry as ShareFetch and
// ShareAcknowledge both answer it (kmsg has one named type for each).
type wireNodeEndpoint = struct {
	NodeID      int32
	Host        string
	Port        int32
	Rack        *string
	UnknownTags kmsg.Tags
}

// shareNodeEndpoints is a share response's NodeEndpoints: the brokers some
// partition's CurrentLeader names (leaderEndpoints).
func shareNodeEndpoints[E ~wireNodeEndpoint](s *sharePartitions) []E {
	var out []E
	for _, b := range s.leaderEndpoints() {
		out = append(out, E(wireNodeEndpoint{NodeID: b.node, Host: b.host, Port: b.port}))
	}
	return out
}

func (s *sharePartitions) want(id [16]byte, tp sharebroker.TopicPartition) {
	s.get(id, tp.Partition).name = tp.Topic
}

// add merges one sharebroker answer: acknowledgement outcomes and acquired
// records, whose bytes come from the data plane.
func (s *sharePartitions) add(resp sharebroker.FetchResponse) {
	for _, a := range resp.Acks {
		res := s.get(s.r.topicID(a.Topic), a.Partition)
		res.ackCode, res.ackMsg = errCode(a.Err)
	}
	for _, f := range resp.Partitions {
		res := s.get(s.r.topicID(f.Topic), f.Partition)
		if f.Err != nil {
			res.code, res.msg = errCode(f.Err)
			continue
		}
		if len(f.Records) == 0 {
			continue
		}
		res.acquired = append(res.acquired, f.Records...)
		s.acquired += len(f.Records)
		first, last := f.Records[0].FirstOffset, f.Records[len(f.Records)-1].LastOffset
		res.records = append(res.records, s.r.cl.data.batchesBetween(f.Topic, f.Partition, first, last)...)
	}
}

func (s *sharePartitions) addAcks(results []sharebroker.AckResult) {
	for _, a := range results {
		res := s.get(s.r.topicID(a.Topic), a.Partition)
		res.code, res.msg = errCode(a.Err)
	}
}

func (s *sharePartitions) fetchTopics() []kmsg.ShareFetchResponseTopic {
	return byTopic[kmsg.ShareFetchResponseTopic](s, func(k shareTP, res *sharePartitionResult) kmsg.ShareFetchResponseTopicPartition {
		p := kmsg.NewShareFetchResponseTopicPartition()
		p.Partition, p.ErrorCode, p.ErrorMessage = k.p, res.code, res.msg
		p.AcknowledgeErrorCode, p.AcknowledgeErrorMessage = res.ackCode, res.ackMsg
		p.CurrentLeader.LeaderID, p.CurrentLeader.LeaderEpoch = s.currentLeader(res.code, k.p)
		p.Records = nonNullRecords(res.records)
		for _, a := range res.acquired {
			ar := kmsg.NewShareFetchResponseTopicPartitionAcquiredRecord()
			ar.FirstOffset, ar.LastOffset, ar.DeliveryCount = a.FirstOffset, a.LastOffset, int16(a.DeliveryCount)
			p.AcquiredRecords = append(p.AcquiredRecords, ar)
		}
		return p
	})
}

func (s *sharePartitions) ackTopics() []kmsg.ShareAcknowledgeResponseTopic {
	return byTopic[kmsg.ShareAcknowledgeResponseTopic](s, func(k shareTP, res *sharePartitionResult) kmsg.ShareAcknowledgeResponseTopicPartition {
		p := kmsg.NewShareAcknowledgeResponseTopicPartition()
		p.Partition, p.ErrorCode, p.ErrorMessage = k.p, res.code, res.msg
		p.CurrentLeader.LeaderID, p.CurrentLeader.LeaderEpoch = s.currentLeader(res.code, k.p)
		return p
	})
}

// wireShareTopic is a topic of a ShareFetch or ShareAcknowledge response,
// P its partition type (kmsg has one named type for each).
type wireShareTopic[P any] = struct {
	TopicID     [16]byte
	Partitions  []P
	UnknownTags kmsg.Tags
}

// byTopic lays a share response's partitions out under their topics, in
// the order the request named them; partition is one partition's answer.
func byTopic[T ~wireShareTopic[P], P any](s *sharePartitions, partition func(k shareTP, res *sharePartitionResult) P) []T {
	var out []T
	index := map[[16]byte]int{}
	for _, k := range s.order {
		i, ok := index[k.id]
		if !ok {
			i = len(out)
			index[k.id] = i
			out = append(out, T(wireShareTopic[P]{TopicID: k.id}))
		}
		t := wireShareTopic[P](out[i])
		t.Partitions = append(t.Partitions, partition(k, s.results[k]))
		out[i] = T(t)
	}
	return out
}
