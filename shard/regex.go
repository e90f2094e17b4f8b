package shard

import (
	"errors"
	"hash/fnv"
	"iter"
	"maps"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"

	"github.com/coordsim/coordsim/kerr"
)

// Regular-expression subscriptions of consumer groups (KIP-848's
// SubscribedTopicRegex): Kafka's GroupMetadataManager.
// maybeUpdateRegularExpressions, refreshRegularExpressions and
// handleRegularExpressionsResult, and the ConsumerGroupRegularExpression
// record.
//
// As in Kafka, regular expressions resolve asynchronously. A member's regex
// new to the group must compile; when a refresh is due the heartbeat
// schedules one: the timer regex-refresh-<group> (IfAbsent, at the
// heartbeat's instant), carrying the regexes the group subscribes to then.
// It runs as its own write once the heartbeat is committed, writes a
// ConsumerGroupRegularExpression record for each regex still subscribed,
// and bumps the group epoch when some regex's topics or the metadata hash
// changed; the members get their topics from the next heartbeat's target.
// A change of a member's regex bumps the epoch by itself only when the
// regex is removed or the group has resolved it already
// (REGEX_UPDATED_AND_RESOLVED). A refresh is never scheduled within 10 s of
// the last resolution; after that, for a new or unresolved regex, once an
// image added a topic, or when the last resolution is older than
// group.consumer.regex.refresh.interval.ms. A regex nobody subscribes to any
// more is tombstoned by the heartbeat or the fence that drops its last
// subscriber.
//
// A regex is RE2 (Go's regexp; Kafka uses RE2/J) and must match a whole
// topic name (RE2/J's Matcher.matches). The record's Version is a
// fingerprint of the whole image (each topic's name, partition count and
// id) rather than the image offset Kafka stores, so every broker computes
// the same one; like the offset, it changes with any change of the image. Kafka drops topics
// the member may not describe; there are no ACLs here.

// regexBatchRefreshIntervalMs is Kafka's REGEX_BATCH_REFRESH_MIN_INTERVAL_MS.
const regexBatchRefreshIntervalMs = 10_000

// defaultRegexRefreshIntervalMs is group.consumer.regex.refresh.interval.ms's
// default (Kafka's CONSUMER_GROUP_REGEX_REFRESH_INTERVAL_MS_DEFAULT).
const defaultRegexRefreshIntervalMs = 600_000

// resolvedRegex is Kafka's ResolvedRegularExpression.
type resolvedRegex struct {
	topics      []string // sorted
	version     uint64
	timestampMs int64
}

// imageFingerprint is the regex records' Version: FNV-1a over every
// topic's name, partition count and id, in name order (names sorted).
func imageFingerprint(names []string, partitions map[string]int32, id func(string) [16]byte) uint64 {
	h := fnv.New64a()
	for _, n := range names {
		h.Write([]byte(n))
		h.Write([]byte{0, byte(partitions[n] >> 24), byte(partitions[n] >> 16), byte(partitions[n] >> 8), byte(partitions[n])})
		topicID := id(n)
		h.Write(topicID[:])
	}
	return h.Sum64()
}

// sortedTopicNames returns the image's names, sorted, and their fingerprint.
func sortedTopicNames(img map[string]int32) ([]string, uint64) {
	names := make([]string, 0, len(img))
	for n := range img {
		names = append(names, n)
	}
	slices.Sort(names)
	h := fnv.New64a()
	for _, n := range names {
		h.Write([]byte(n))
		h.Write([]byte{0})
	}
	return names, h.Sum64()
}

// compileTopicRegex is Kafka's throwIfRegularExpressionIsInvalid, returning
// the pattern anchored to match whole topic names.
func compileTopicRegex(re string) (*regexp.Regexp, error) {
	if _, err := regexp.Compile(re); err != nil {
		desc := err.Error()
		var se *syntax.Error
		if errors.As(err, &se) {
			desc = se.Code.String() // RE2/J's getDescription names the same codes
		}
		return nil, kerr.InvalidRegularExpression.WithMessage("SubscribedTopicRegex `%s` is not a valid regular expression: %s.", re, desc)
	}
	return regexp.MustCompile(`^(?:` + re + `)$`), nil
}

// resolveRegex returns the topics of the image rx matches, sorted.
func (s *Shard) resolveRegex(rx *regexp.Regexp) []string {
	var out []string
	for _, t := range s.topicNames {
		if rx.MatchString(t) {
			out = append(out, t)
		}
	}
	return out
}

// regexRefreshDue reports whether a steady heartbeat of member m in a
// stored group must take the slow path, which schedules a refresh
// (regexRefreshNeeded). A group none of whose members subscribes to a
// regex pays one cached flag (group.subscribesRegex); in one that does,
// any member's heartbeat reschedules a refresh a load dropped, as Kafka's
// does (--regex seed 2524 and 15 others of the differential runner's
// 10 000 sequences; only the regex's own subscribers did before).
func (s *Shard) regexRefreshDue(g *group, m *member, nowMs int64) bool {
	if !g.subscribesRegex() {
		return false
	}
	last := lastRegexRefreshMs(g.regexes)
	if nowMs <= last+regexBatchRefreshIntervalMs {
		return false // checked first: most steady heartbeats end here
	}
	subscribed := subscribedRegexes(maps.Values(g.members))
	return s.regexRefreshNeeded(subscribed, last, nowMs, s.regexesStale(g) || len(subscribed) != len(g.regexes))
}

func (v *view) regexesForWrite() map[string]resolvedRegex {
	if !v.regexesOwned {
		if v.regexes == nil {
			v.regexes = map[string]resolvedRegex{}
		} else {
			v.regexes = maps.Clone(v.regexes)
		}
		v.regexesOwned = true
	}
	return v.regexes
}

func (v *view) regexInUse(re string) bool {
	return slices.ContainsFunc(v.members, func(m *member) bool { return m.consumerPart().topicRegex == re })
}

func (v *view) regexRecord(re string, r resolvedRegex) Record {
	return &ConsumerGroupRegularExpression{Group: v.id, Regex: re, Topics: r.topics, Version: r.version, TimestampMs: r.timestampMs}
}

// maybeForgetRegex tombstones re once no member subscribes to it.
func (v *view) maybeForgetRegex(re string) {
	if r := v.forgetRegex(re); r != nil {
		v.records = append(v.records, r)
	}
}

// forgetRegex drops re from the group's regexes once no member subscribes
// to it, resolved or not (Kafka's maybeDeleteResolvedRegularExpressions
// counts subscribers only), and returns its tombstone; nil while re is in
// use.
func (v *view) forgetRegex(re string) Record {
	if re == "" || v.regexInUse(re) {
		return nil
	}
	if _, ok := v.regexes[re]; ok {
		delete(v.regexesForWrite(), re)
	}
	return &ConsumerGroupRegularExpression{Group: v.id, Regex: re, Tombstone: true}
}

// updateRegularExpressions is maybeUpdateRegularExpressions: it applies
// member i's SubscribedTopicRegex (nil: unchanged) and schedules a
// resolution of the group's regexes when one is due. It returns the regex
// records (a tombstone for a regex that lost its last subscriber), whether
// the member changed, and whether the group epoch must be bumped: a regex
// removed, or one the group has resolved (REGEX_UPDATED_AND_RESOLVED; a
// consumer heartbeat bumps on that status only, a classic join on any
// change, which is always a removal there). A regex new to
// the group must compile, or the heartbeat fails; it is resolved later, by
// the refresh task (refreshRegularExpressions), so its subscriber has no
// regex topics until then. A regex the group resolved already gives its
// topics at once.
func (v *view) updateRegularExpressions(nowMs int64, i int, regex *string) (records []Record, changed, bump bool, err error) {
	m := v.members[i]
	old := m.consumerPart().topicRegex
	groupHadRegexes := slices.ContainsFunc(v.members, func(x *member) bool { return x.consumerPart().topicRegex != "" })
	// The group as it was before this heartbeat decides the refresh, as
	// Kafka reads its ConsumerGroup before the records are replayed.
	resolvedBefore, lastRefresh := len(v.regexes), lastRegexRefreshMs(v.regexes)
	requireRefresh := false
	if regex != nil && *regex != old {
		re := *regex
		if re != "" && !v.regexInUse(re) {
			// throwIfRegularExpressionIsInvalid, for a regex no member
			// subscribes to yet.
			if _, err = compileTopicRegex(re); err != nil {
				return nil, false, false, err
			}
			requireRefresh = true
		}
		_, ok := v.regexes[re]
		resolved := ok && re != "" && v.regexInUse(re) // by others, before this member
		m = v.own(i)
		m.setRegex(re, nil)
		// REGEX_UPDATED_AND_RESOLVED bumps the epoch: the regex removed, or
		// one the group resolved already. A regex new or unresolved does
		// not, until its resolution lands.
		changed, bump = true, resolved || re == "" && old != ""
		if r := v.forgetRegex(old); r != nil {
			records = append(records, r)
		}
		if r, ok := v.regexes[re]; ok && re != "" {
			m.setRegexTopics(r.topics)
		}
	}
	if requireRefresh || groupHadRegexes {
		stale := v.g != nil && v.s.regexesStale(v.g)
		if subscribed := subscribedRegexes(slices.Values(v.members)); v.s.regexRefreshNeeded(subscribed, lastRefresh, nowMs, requireRefresh || stale || len(subscribed) != resolvedBefore) {
			t := Task{Kind: TaskRegexRefresh, Type: Consumer, GroupID: v.id, Regexes: subscribed}
			v.timers = append(v.timers, TimerOp{Key: t.Key(), DeadlineMs: nowMs, IfAbsent: true, Task: t})
		}
	}
	return records, changed, bump, nil
}

// regexRefreshNeeded is the rest of maybeUpdateRegularExpressions' test
// for scheduling a refresh: none within REGEX_BATCH_REFRESH_MIN_INTERVAL_MS
// (10 s) of the last resolution (last), nor for a group that subscribes to
// no regex; then one if the caller requires it (a regex is new, the group
// subscribes to another number of regexes than it has resolved, or they
// are stale) or the last resolution is older than
// group.consumer.regex.refresh.interval.ms. A refresh already scheduled
// is kept (the timer is IfAbsent), as Kafka's isScheduled check does.
func (s *Shard) regexRefreshNeeded(subscribed []string, last int64, nowMs int64, requireRefresh bool) bool {
	if nowMs <= last+regexBatchRefreshIntervalMs || len(subscribed) == 0 {
		return false
	}
	return requireRefresh || nowMs > last+s.regexRefreshIntervalMs()
}

// regexesStale is Kafka's lastResolvedRegularExpressionVersion() <
// lastMetadataImageWithNewTopics for g: an image since the resolution
// added a topic. Regexes a load replayed are stale when they were resolved
// against another image than the one the shard loaded with (Kafka: a
// record's image offset older than the image onLoaded sees), or once an
// image since the load added a topic; a change of partition counts after
// the load makes none stale (--regex seeds 3560, 7127, 7176 and 9666 of
// the 10 000).
func (s *Shard) regexesStale(g *group) bool {
	if len(g.regexes) == 0 {
		return false
	}
	if !g.regexesLoaded {
		return g.regexImage < s.imageWithNewTopics
	}
	loadHash := s.imageHash
	if s.loaded {
		if s.loadImageVersion < s.imageWithNewTopics {
			return true
		}
		loadHash = s.loadImageHash
	}
	for _, r := range g.regexes {
		if r.version != loadHash {
			return true
		}
	}
	return false
}

// lastRegexRefreshMs is ConsumerGroup.lastResolvedRegularExpressionRefreshTimeMs:
// when the group's regexes were last resolved (they are resolved together),
// MinInt64 when none is. The map is only aggregated, never iterated for
// output.
func lastRegexRefreshMs(resolved map[string]resolvedRegex) int64 {
	last := int64(math.MinInt64)
	for _, r := range resolved {
		last = max(last, r.timestampMs)
	}
	return last
}

// subscribedRegexes lists the regexes the members subscribe to, sorted: the
// ones a refresh task resolves.
func subscribedRegexes(members iter.Seq[*member]) []string {
	var out []string
	for m := range members {
		if re := m.consumerPart().topicRegex; re != "" {
			out = append(out, re)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (s *Shard) regexRefreshIntervalMs() int64 {
	if s.cfg.ConsumerRegexRefreshIntervalMs > 0 {
		return s.cfg.ConsumerRegexRefreshIntervalMs
	}
	return defaultRegexRefreshIntervalMs
}

// refreshRegularExpressions runs a refresh task: Kafka's
// refreshRegularExpressions (TopicRegexResolver) against the topic image of
// now, then handleRegularExpressionsResult. Every regex of the task that a
// member still subscribes to gets its record, changed or not; the members
// subscribed to a regex whose topics changed take them; and the group
// epoch is bumped, with the new metadata hash, when some regex's topics
// changed (even to topics the members also name, which leave the hash as
// it was) or the hash did. The target assignment waits for the next
// heartbeat.
// A group that is gone or no longer a consumer group gets nothing.
func (s *Shard) refreshRegularExpressions(nowMs int64, t Task) Result[struct{}] {
	var res Result[struct{}]
	g := s.lookup(t.GroupID)
	if g == nil || g.typ != Consumer {
		return res
	}
	v := s.newView(g, Consumer, g.id)
	bump := false
	for _, re := range t.Regexes {
		if !v.regexInUse(re) {
			continue
		}
		rx, err := compileTopicRegex(re)
		var topics []string
		if err == nil {
			topics = s.resolveRegex(rx)
		}
		r := resolvedRegex{topics: topics, version: s.imageHash, timestampMs: nowMs}
		old := v.regexes[re]
		v.regexesForWrite()[re] = r
		v.records = append(v.records, v.regexRecord(re, r))
		if slices.Equal(old.topics, r.topics) {
			continue
		}
		bump = true
		for j, x := range v.members {
			if x.consumerPart().topicRegex == re {
				v.own(j).setRegexTopics(r.topics)
			}
		}
	}
	if v.metadataHashChanged() || bump {
		v.epoch++
		v.records = append(v.records, v.groupEpochRecord())
	}
	res.Records = v.records
	return res
}

// applyRegularExpression replays a ConsumerGroupRegularExpression record:
// the group's resolution of the regex and its subscribers' regex topics.
func (s *Shard) applyRegularExpression(r *ConsumerGroupRegularExpression) error {
	if r.Regex == "" {
		return replayErr(r, "empty regular expression")
	}
	var g *group
	if r.Tombstone {
		var err error
		if g, err = s.existingGroup(r, Consumer); g == nil {
			return err
		}
		g = s.mutableGroup(g.id)
	} else {
		var err error
		if g, err = s.groupForRecord(r, Consumer, true); err != nil {
			return err
		}
	}
	regexes := maps.Clone(g.regexes) // replaced, never written in place
	if regexes == nil {
		regexes = map[string]resolvedRegex{}
	}
	var topics []string
	if r.Tombstone {
		delete(regexes, r.Regex)
	} else {
		topics = r.Topics
		regexes[r.Regex] = resolvedRegex{topics: topics, version: r.Version, timestampMs: r.TimestampMs}
	}
	if len(regexes) == 0 {
		regexes = nil
	}
	g.regexes = regexes
	if !r.Tombstone {
		g.regexImage, g.regexesLoaded = s.imageVersion, s.loading
	}
	for _, m := range g.members {
		if m.consumerPart().topicRegex == r.Regex {
			m.setRegexTopics(topics)
		}
	}
	g.subscribedHashOK = false
	s.refresh(g.id)
	return nil
}

// describeRegexes lists a group's regexes in regex order.
func describeRegexes(rs map[string]resolvedRegex) []RegularExpressionDescription {
	var out []RegularExpressionDescription
	for _, re := range slices.Sorted(maps.Keys(rs)) {
		r := rs[re]
		out = append(out, RegularExpressionDescription{Regex: re, Topics: r.topics, Version: r.version, TimestampMs: r.timestampMs})
	}
	return out
}

// topics returns everything the member subscribes to: its names and its
// regex's topics, sorted and unique.
func (m *member) topics() []string {
	if len(m.consumerPart().regexTopics) == 0 {
		return m.subscribedTopics
	}
	out := append(slices.Clone(m.subscribedTopics), m.consumerPart().regexTopics...)
	slices.Sort(out)
	return slices.Compact(out)
}

// subscribes reports whether the member subscribes to topic, by name or by
// its regex.
func (m *member) subscribes(topic string) bool {
	if _, ok := slices.BinarySearch(m.subscribedTopics, topic); ok {
		return true
	}
	_, ok := slices.BinarySearch(m.consumerPart().regexTopics, topic)
	return ok
}
