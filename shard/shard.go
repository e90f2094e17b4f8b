package shard

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/btree"
	"go.uber.org/atomic"

	"github.com/coordsim/coordsim/assignor"
	"github.com/coordsim/coordsim/internal/mutant"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/offsets"
)

// Config is what one shard needs to know. Times are milliseconds; the
// coordinator converts its Kafka-keyed configuration into this.
type Config struct {
	OffsetsRetentionMs              int64
	OffsetsRetentionCheckIntervalMs int64
	OffsetMetadataMaxBytes          int

	ConsumerSessionTimeoutMs    int32
	ConsumerHeartbeatIntervalMs int32
	ConsumerMaxSize             int
	StreamsSessionTimeoutMs     int32
	StreamsHeartbeatIntervalMs  int32
	StreamsMaxSize              int
	// StreamsNumStandbyReplicas is group.streams.num.standby.replicas, a
	// streams group's num.standby.replicas (default 0, >= 0; the coordinator
	// bounds it by group.streams.max.standby.replicas).
	StreamsNumStandbyReplicas int32
	// StreamsInitialRebalanceDelayMs is group.streams.initial.rebalance.delay.ms
	// (Kafka's default 3000): a streams group that a member joins while it
	// is empty waits this long before its first target assignment, so the
	// members of a starting application land in one rebalance. 0 disables it.
	StreamsInitialRebalanceDelayMs int32
	// ConsumerAssignmentIntervalMs, ShareAssignmentIntervalMs and
	// StreamsAssignmentIntervalMs are group.consumer.assignment.interval.ms
	// and its share and streams twins (>= 0): a group computes a new target
	// at most once per interval (assignment_interval.go). 0, the default,
	// computes one whenever the group epoch passes the assignment epoch.
	// Kafka's default is 1000 together with offloading the computation to
	// a background thread, so that a target always comes a heartbeat
	// later; coordsim computes inline, as Kafka with offloading off.
	ConsumerAssignmentIntervalMs, ShareAssignmentIntervalMs, StreamsAssignmentIntervalMs int32
	// StreamsTaskOffsetIntervalMs is group.streams.task.offset.interval.ms
	// (Kafka's default 60000, >= 1) and StreamsAcceptableRecoveryLag
	// group.streams.acceptable.recovery.lag (10000, >= 0): what a streams
	// heartbeat's answer tells the member, how often to report its task
	// offsets and how far behind a caught-up task may be.
	StreamsTaskOffsetIntervalMs  int32
	StreamsAcceptableRecoveryLag int64
	// ConsumerRegexRefreshIntervalMs is group.consumer.regex.refresh.interval.ms:
	// a consumer group's regexes are resolved again once their last
	// resolution is older, whatever the topic image did. 0 is Kafka's
	// default, 10 minutes.
	ConsumerRegexRefreshIntervalMs int64
	ShareSessionTimeoutMs          int32
	ShareHeartbeatIntervalMs       int32
	ShareMaxSize                   int
	// ShareInitializeRetryIntervalMs is group.share.initialize.retry.interval.ms:
	// a share partition still initialising after it is asked for again.
	// 0 is Kafka's default, 30 s; Kafka raises a value below
	// offsets.commit.timeout.ms (5 s) to it.
	ShareInitializeRetryIntervalMs int64
	// Classic is the classic group protocol's configuration.
	Classic ClassicConfig

	// ConsumerAssignors is group.consumer.assignors: the server assignors
	// consumer members may name, the first the default. nil means Kafka's
	// default list, uniform and range.
	ConsumerAssignors *assignor.Registry

	// StreamsTopologyUpdates lets a streams member that joins with a higher
	// topology epoch replace the group's topology. Kafka does not support
	// topology updates yet (it answers INVALID_REQUEST "Topology updates are
	// not supported yet."); this is ahead of Kafka, for the simulator's
	// rolling upgrades and KIP-1331's plans. Off by default.
	StreamsTopologyUpdates bool

	// TopologyPluginConfigured is KIP-1331's builder flag: when set, the sweep
	// defers the tombstone of a streams group whose stored description epoch
	// is not -1 (docs/kip1331.md §2.4).
	TopologyPluginConfigured bool

	// Mutants are deliberate bugs for the simulator's own tests; the zero
	// value (always, outside those tests) changes nothing.
	Mutants mutant.Set
}

// DefaultConfig is Kafka's defaults, but for the assignment intervals
// (0; see ConsumerAssignmentIntervalMs).
func DefaultConfig() Config {
	return Config{
		OffsetsRetentionMs:              7 * 24 * 60 * 60 * 1000,
		OffsetsRetentionCheckIntervalMs: 600_000,
		OffsetMetadataMaxBytes:          offsets.MetadataMaxBytes,
		ConsumerSessionTimeoutMs:        45_000,
		ConsumerHeartbeatIntervalMs:     5_000,
		ConsumerMaxSize:                 1<<31 - 1,
		StreamsSessionTimeoutMs:         45_000,
		StreamsHeartbeatIntervalMs:      5_000,
		StreamsMaxSize:                  1<<31 - 1,
		StreamsInitialRebalanceDelayMs:  3_000,
		StreamsTaskOffsetIntervalMs:     60_000,
		StreamsAcceptableRecoveryLag:    10_000,
		ShareSessionTimeoutMs:           45_000,
		ShareHeartbeatIntervalMs:        5_000,
		ShareMaxSize:                    200,
		Classic:                         DefaultClassicConfig(),
	}
}

// Validate checks the configuration; the coordinator names Kafka's keys.
func (c Config) Validate() error {
	switch {
	case c.OffsetsRetentionMs < 1:
		return fmt.Errorf("shard: OffsetsRetentionMs must be >= 1, got %d", c.OffsetsRetentionMs)
	case c.OffsetsRetentionCheckIntervalMs < 1:
		return fmt.Errorf("shard: OffsetsRetentionCheckIntervalMs must be >= 1, got %d", c.OffsetsRetentionCheckIntervalMs)
	case c.OffsetMetadataMaxBytes < 0:
		return fmt.Errorf("shard: OffsetMetadataMaxBytes must be >= 0, got %d", c.OffsetMetadataMaxBytes)
	case c.ConsumerSessionTimeoutMs < 1 || c.StreamsSessionTimeoutMs < 1 || c.ShareSessionTimeoutMs < 1:
		return fmt.Errorf("shard: session timeouts must be >= 1 ms")
	case c.ConsumerHeartbeatIntervalMs < 1 || c.StreamsHeartbeatIntervalMs < 1 || c.ShareHeartbeatIntervalMs < 1:
		return fmt.Errorf("shard: heartbeat intervals must be >= 1 ms")
	case c.ConsumerMaxSize < 1 || c.StreamsMaxSize < 1 || c.ShareMaxSize < 1:
		return fmt.Errorf("shard: group max sizes must be >= 1")
	case c.StreamsNumStandbyReplicas < 0:
		return fmt.Errorf("shard: StreamsNumStandbyReplicas must be >= 0, got %d", c.StreamsNumStandbyReplicas)
	case c.ConsumerAssignmentIntervalMs < 0 || c.ShareAssignmentIntervalMs < 0 || c.StreamsAssignmentIntervalMs < 0:
		return fmt.Errorf("shard: assignment intervals must be >= 0 ms")
	case c.StreamsTaskOffsetIntervalMs < 1 || c.StreamsAcceptableRecoveryLag < 0:
		return fmt.Errorf("shard: StreamsTaskOffsetIntervalMs must be >= 1 and StreamsAcceptableRecoveryLag >= 0")
	case c.StreamsInitialRebalanceDelayMs < 0:
		return fmt.Errorf("shard: StreamsInitialRebalanceDelayMs must be >= 0, got %d", c.StreamsInitialRebalanceDelayMs)
	}
	return nil
}

// Shard is one __consumer_offsets partition: its groups, its offsets and the
// indexes derived from them. It is not safe for concurrent use.
//
// Clone returns a copy-on-write snapshot in O(1): the btrees are cloned
// lazily, and group objects are shared until either copy writes to one.
type Shard struct {
	cfg       Config
	partition int32
	// forgotten lists the classic groups the load changed and no record
	// has rewritten since (classic_load.go); shared by clones, copied on
	// write.
	forgotten []string

	// gen marks the group objects this copy may write in place. Every Clone
	// gives both copies fresh generations from the shared source, so neither
	// writes an object the other can see.
	gen       uint64
	genSource *atomic.Uint64

	groups  *btree.BTreeG[*group]
	offsets *offsets.Store
	// deletable holds the ids of groups the sweep could tombstone now: not
	// share, empty, no offsets and no open transaction. It keeps the sweep
	// O(what expires) instead of O(all groups).
	deletable *btree.BTreeG[string]
	// eligible holds the KIP-1331 cleanup candidates: streams, empty, stored
	// description epoch set and no offsets or open transaction (§2.4).
	eligible *btree.BTreeG[string]
	// emptyClassic holds the ids of Empty classic groups with a protocol
	// type: their offsets expire counting from the group's state
	// timestamp, not from their commit times (sweep.go).
	emptyClassic *btree.BTreeG[string]
	// topicGroups indexes the streams groups by the topics their topology
	// names, so a new image re-derives only the groups it can change
	// (topic_index.go).
	topicGroups *btree.BTreeG[topicGroup]

	counts [numGroupTypes][numGroupStates]int

	topics map[string]int32 // topic metadata image: name → partition count (racks below)
	// racks is the image's partition racks (racks.go): per topic, per
	// partition, the racks of its replicas, sorted; nil for a
	// topic the image gives no racks. rackHashes is each such topic's
	// metadata hash, racks included. Both replaced with topics.
	racks      map[string][][]string
	rackHashes map[string]uint64
	// topicIDs is the image's topic ids (topic_ids.go), nil when it gives
	// none; replaced with topics.
	topicIDs map[string][16]byte
	// streamsStandbys is the streams groups' streams.num.standby.replicas
	// group configs (group id → value), metadata outside the log like
	// topics; replaced, never written in place (SetStreamsGroupConfigs).
	streamsStandbys map[string]int32
	// groupTimeouts is the groups' session timeout and heartbeat interval
	// group configs, like streamsStandbys (SetGroupTimeouts).
	groupTimeouts map[string]GroupTimeouts
	// topicNames is the image's names, sorted, and topicNamesHash their
	// fingerprint; imageHash fingerprints the whole image, the version a
	// regex record stores (regex.go). Replaced with topics.
	topicNames     []string
	topicNamesHash uint64
	imageHash      uint64
	// imageVersion counts the images installed, and imageWithNewTopics is
	// the count at the last that added a topic name to an earlier one:
	// Kafka's metadata image version and lastMetadataImageWithNewTopics,
	// which decide when a group's regexes resolved on this shard are stale
	// (regexesStale; those a load replays are judged by the load's image
	// too). Soft state, like the image; a shard's first image adds nothing
	// unless it comes after OnLoaded (a shard loaded before it had one).
	imageVersion, imageWithNewTopics uint64
	// loaded says OnLoaded ran, and loadImageHash and loadImageVersion
	// are imageHash and imageVersion then: Kafka's onLoaded sets
	// lastMetadataImageWithNewTopics to the image it loads with, so a
	// regex a load replayed is stale when resolved against another image
	// than that one, or once a later image adds a topic; and every image
	// after the load is compared with the one before it, the empty image
	// too.
	loaded           bool
	loadImageHash    uint64
	loadImageVersion uint64
	// loading is set while ReplayAll rebuilds state from a log.
	loading bool
	// imageID names the prepared image installed last (nil: none, or one
	// installed through SetTopicImage's own preparation).
	imageID *imageID

	// probe is the search key lookup reuses, so a lookup does not allocate.
	// Each copy (and clone) has its own.
	probe group

	// ready memoizes topologyReady per topology over the current image:
	// InternalTopicManager.configureTopics is pure in the two, and refresh
	// asks on every record a streams group replays (each offset commit).
	// A topology is never written after its record is replayed, so its
	// pointer keys it; a new image drops the entries of the topologies it
	// can change (forgetReady), and each copy (and clone) has its own, so
	// copies never write a map the other reads.
	ready map[*Topology]bool

	lastOffset int64 // offset of the last replayed record, -1 before any
}

const btreeDegree = 16

// MaxTopicPartitions bounds a topic's partition count in the metadata image:
// the assignors walk every partition, so an absurd count would stall them.
const MaxTopicPartitions = 100_000

func lessGroup(a, b *group) bool { return a.id < b.id }

// New returns an empty shard for partition with cfg.
func New(partition int32, cfg Config) (*Shard, error) {
	if partition < 0 {
		return nil, fmt.Errorf("shard: partition must be >= 0, got %d", partition)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	src := atomic.NewUint64(1)
	s := &Shard{
		cfg:          cfg,
		partition:    partition,
		gen:          src.Load(),
		genSource:    src,
		groups:       btree.NewG(btreeDegree, lessGroup),
		offsets:      offsets.NewStore(cfg.OffsetsRetentionMs),
		deletable:    btree.NewOrderedG[string](btreeDegree),
		eligible:     btree.NewOrderedG[string](btreeDegree),
		emptyClassic: btree.NewOrderedG[string](btreeDegree),
		topics:       map[string]int32{},
		lastOffset:   -1,
	}
	s.topicGroups = btree.NewG(btreeDegree, lessTopicGroup)
	return s, nil
}

// Partition is the __consumer_offsets partition this shard is.
func (s *Shard) Partition() int32 { return s.partition }

// Config returns the shard's configuration.
func (s *Shard) Config() Config { return s.cfg }

// LastOffset is the log offset of the last replayed record (-1 before any).
func (s *Shard) LastOffset() int64 { return s.lastOffset }

// Clone returns a snapshot that shares structure with s copy-on-write.
func (s *Shard) Clone() *Shard {
	c := *s
	c.probe = group{}
	c.ready = nil
	c.groups = s.groups.Clone()
	c.offsets = s.offsets.Clone()
	c.deletable = s.deletable.Clone()
	c.eligible = s.eligible.Clone()
	c.emptyClassic = s.emptyClassic.Clone()
	c.topicGroups = s.topicGroups.Clone()
	c.topics = s.topics // replaced, never written in place: see SetTopics
	c.topicNames = s.topicNames
	s.gen = s.genSource.Inc()
	c.gen = s.genSource.Inc()
	return &c
}

// SetTopics installs the topic metadata image (name → partition count)
// without racks: SetTopicImage with Partitions only.
func (s *Shard) SetTopics(topics map[string]int32) error {
	return s.SetTopicImage(TopicImage{Partitions: topics})
}

// SetTopicImage installs the topic metadata image. It is not a record: like
// Kafka's MetadataImage it comes from outside the log, and group states that
// depend on it (streams NOT_READY) are re-derived. An empty image is Kafka's
// MetadataImage.EMPTY: no topic exists, so every streams group with members
// is NOT_READY. Bad input (see TopicImage) changes nothing.
func (s *Shard) SetTopicImage(image TopicImage) error {
	p, err := PrepareTopicImage(image)
	if err != nil {
		return err
	}
	s.SetPreparedTopicImage(p)
	return nil
}

// PreparedTopicImage is a validated topic image with what every shard derives
// from it (sorted names, normalised racks, rack hashes) computed once: a
// broker installs one image on all its shards. It is never written after
// PrepareTopicImage returns, so any number of shards may share it.
type PreparedTopicImage struct {
	id *imageID
	// base names the image this one was prepared from and changed the
	// topics whose partition count differs from it, sorted
	// (PrepareTopicImageFrom); nil without one.
	base           *imageID
	changed        []string
	topics         map[string]int32
	racks          map[string][][]string
	rackHashes     map[string]uint64
	topicIDs       map[string][16]byte
	topicNames     []string
	topicNamesHash uint64
	imageHash      uint64
}

// PrepareTopicImage validates image (see TopicImage) and prepares it for
// SetPreparedTopicImage. It copies what it keeps: the caller may reuse
// image afterwards.
func PrepareTopicImage(image TopicImage) (*PreparedTopicImage, error) {
	img := make(map[string]int32, len(image.Partitions))
	// Sorted, so that of several faults the same one is always named.
	for _, name := range slices.Sorted(maps.Keys(image.Partitions)) {
		n := image.Partitions[name]
		if err := validateTopicName(name); err != nil {
			return nil, err
		}
		if n < 1 || n > MaxTopicPartitions {
			return nil, kerr.InvalidRequest.WithMessage("topic %q must have between 1 and %d partitions, got %d", name, MaxTopicPartitions, n)
		}
		img[name] = n
	}
	racks, rackHashes, err := imageRacks(img, image.Racks)
	if err != nil {
		return nil, err
	}
	ids, err := imageTopicIDs(img, image.IDs)
	if err != nil {
		return nil, err
	}
	p := &PreparedTopicImage{id: &imageID{}, topics: img, racks: racks, rackHashes: rackHashes, topicIDs: ids}
	p.topicNames, p.topicNamesHash = sortedTopicNames(img)
	p.imageHash = imageFingerprint(p.topicNames, img, func(t string) [16]byte {
		if id, ok := ids[t]; ok {
			return id
		}
		return DefaultTopicID(t)
	})
	return p, nil
}

// Image returns a copy of the image p was prepared from, racks sorted.
func (p *PreparedTopicImage) Image() TopicImage {
	return TopicImage{Partitions: p.topics, Racks: p.racks, IDs: p.topicIDs}.Clone()
}

// SetPreparedTopicImage installs a prepared image: SetTopicImage without
// the validation and derivation, which p already holds. It re-derives the
// streams groups with members whose topology names a topic whose partition
// count changed (topic_index.go), the only groups the image can change.
func (s *Shard) SetPreparedTopicImage(p *PreparedTopicImage) {
	changed := s.groupsOnChangedTopics(p)
	s.forgetReady(changed)
	s.topics = p.topics
	s.racks, s.rackHashes = p.racks, p.rackHashes
	s.topicIDs = p.topicIDs
	s.imageVersion++
	if (s.imageVersion > 1 || s.loaded) && p.topicNamesHash != s.topicNamesHash && addsName(s.topicNames, p.topicNames) {
		s.imageWithNewTopics = s.imageVersion
	}
	s.topicNames, s.topicNamesHash, s.imageHash = p.topicNames, p.topicNamesHash, p.imageHash
	s.imageID = p.id
	for _, id := range changed {
		if g := s.lookup(id); g != nil && groupKinds[g.typ].readsTopology() && len(g.members) > 0 {
			s.refresh(id)
		}
	}
}

// addsName reports whether the sorted names after hold one that before
// does not.
func addsName(before, after []string) bool {
	i := 0
	for _, n := range after {
		for i < len(before) && before[i] < n {
			i++
		}
		if i == len(before) || before[i] != n {
			return true
		}
	}
	return false
}

// maxReadyCache bounds the topologyReady memo: a replaced topology's entry
// stays, so a long run would otherwise grow it without end.
const maxReadyCache = 1024

// topologyReady is topologyReady(t) over the shard's image, memoized.
func (s *Shard) topologyReady(t *Topology) bool {
	if ready, ok := s.ready[t]; ok {
		return ready
	}
	ready := topologyReady(t, s.TopicPartitions)
	if s.ready == nil || len(s.ready) >= maxReadyCache {
		s.ready = make(map[*Topology]bool)
	}
	s.ready[t] = ready
	return ready
}

// TopicPartitions returns the partition count of topic in the metadata image
// (0 when unknown).
func (s *Shard) TopicPartitions(topic string) int32 { return s.topics[topic] }

func (s *Shard) lookup(id string) *group {
	s.probe.id = id
	g, ok := s.groups.Get(&s.probe)
	s.probe.id = ""
	if !ok {
		return nil
	}
	return g
}

// mutableGroup returns a group object that s may write, copying it first if
// a clone may still see it.
func (s *Shard) mutableGroup(id string) *group {
	g := s.lookup(id)
	if g == nil {
		return nil
	}
	if g.gen != s.gen {
		g = g.clone()
		g.gen = s.gen
		s.groups.ReplaceOrInsert(g)
	}
	return g
}

func (s *Shard) createGroup(id string, typ GroupType) *group {
	g := newGroup(id, typ)
	g.gen = s.gen
	s.groups.ReplaceOrInsert(g)
	s.counts[typ][StateEmpty]++
	return g
}

func (s *Shard) removeGroup(id string) {
	g, ok := s.groups.Delete(&group{id: id})
	if !ok {
		return
	}
	s.counts[g.typ][g.state]--
	s.indexTopology(id, g.topology, false)
	if g.deletable {
		s.deletable.Delete(id)
	}
	if g.eligible {
		s.eligible.Delete(id)
	}
	if g.emptyClassic {
		s.emptyClassic.Delete(id)
	}
}

// refresh re-derives a group's state and index membership after a replay
// touched it. It is the one place the derived fields change.
func (s *Shard) refresh(id string) {
	g := s.lookup(id)
	if g == nil {
		return
	}
	state := g.deriveState(s)
	noOffsets := s.offsets.GroupHasNoOffsets(id)
	kind := groupKinds[g.typ]
	deletable := kind.shouldExpire() && state == StateEmpty && noOffsets
	eligible := kind.keepsDescriptionEpochs() && state == StateEmpty && g.storedEpoch != EpochNone && noOffsets
	settled := g.typ == Share && s.shareSettled(g)
	// The steady heartbeat's cached metadata hash, recomputed once what
	// the group reads or the topic image changed; not during a load, which
	// would compute it once per replayed member (OnLoaded does it once).
	rehash := !s.loading && (!g.subscribedHashOK || g.subscribedHashImage != s.imageVersion)
	recount := !s.loading && !g.severalAssignorsOK
	emptyClassic := g.typ == Classic && state == StateEmpty && g.protocolType != ""
	if state == g.state && deletable == g.deletable && eligible == g.eligible && settled == g.shareSettled && !rehash && !recount && emptyClassic == g.emptyClassic {
		return
	}
	g = s.mutableGroup(id)
	g.shareSettled = settled
	if rehash {
		g.cacheSubscribedHash(s)
	}
	if recount {
		g.severalAssignors, g.anyRegex = countMembers(g)
		g.severalAssignorsOK = true
	}
	s.counts[g.typ][g.state]--
	s.counts[g.typ][state]++
	g.state = state
	g.deletable = index(s.deletable, id, g.deletable, deletable)
	g.eligible = index(s.eligible, id, g.eligible, eligible)
	g.emptyClassic = index(s.emptyClassic, id, g.emptyClassic, emptyClassic)
}

// cacheSubscribedHash fills the steady heartbeat's metadata hash cache
// (group.subscribedHash); g must be mutable.
func (g *group) cacheSubscribedHash(s *Shard) {
	g.subscribedHash, g.subscribedHashImage, g.subscribedHashOK = s.groupMetadataHash(g), s.imageVersion, true
}

// steadyMetadataHash is groupMetadataHash through the cache when it is
// valid for the current topic image.
func (s *Shard) steadyMetadataHash(g *group) int64 {
	if g.subscribedHashOK && g.subscribedHashImage == s.imageVersion {
		return g.subscribedHash
	}
	return s.groupMetadataHash(g)
}

// index keeps group id in an index tree (deletable, eligible) when its
// flag changes from was to now, and returns now.
func index(t *btree.BTreeG[string], id string, was, now bool) bool {
	switch {
	case now && !was:
		t.ReplaceOrInsert(id)
	case was && !now:
		t.Delete(id)
	}
	return now
}

func validateTopicName(name string) error {
	if name == "" {
		return kerr.InvalidTopicException.WithMessage("topic name is empty")
	}
	if len(name) > 249 {
		return kerr.InvalidTopicException.WithMessage("topic name is longer than 249 characters")
	}
	if strings.ContainsAny(name, "\x00\n") {
		return kerr.InvalidTopicException.WithMessage("topic name %q contains an illegal character", name)
	}
	return nil
}

// Topics returns a copy of the topic metadata image.
func (s *Shard) Topics() map[string]int32 {
	out := make(map[string]int32, len(s.topics))
	for k, v := range s.topics {
		out[k] = v
	}
	return out
}
