package shard

import (
	"errors"
	"hash/fnv"
	"maps"
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
// Kafka resolves regular expressions asynchronously: a heartbeat schedules
// a resolution against the metadata image, and its result, written later as
// ConsumerGroupRegularExpression records, bumps the group epoch if the topics
// changed. The core has no asynchrony, so here the resolution runs inside
// the heartbeat that needs it and its records are part of that heartbeat's
// result, deterministically:
//
//   - a regex new to the group is resolved by the heartbeat that brings it
//     (Kafka: by a resolution that heartbeat schedules, so the member's
//     subscription change and the resolution bump the epoch once here,
//     twice in Kafka);
//   - the group's regexes are re-resolved by any heartbeat of the group
//     once the topic names of the metadata image changed since they were
//     resolved and the last resolution is more than 10 s old (Kafka's
//     REGEX_BATCH_REFRESH_INTERVAL_MS), or together with a new regex;
//   - a regex nobody subscribes to any more is tombstoned by the heartbeat
//     or the fence that drops its last subscriber.
//
// A regex is RE2 (Go's regexp; Kafka uses RE2/J) and must match a whole
// topic name (RE2/J's Matcher.matches). The record's Version is a
// fingerprint of the image's topic names rather than the image offset
// Kafka stores, so every broker computes the same one. Kafka drops topics
// the member may not describe; there are no ACLs here.

// regexBatchRefreshIntervalMs is Kafka's REGEX_BATCH_REFRESH_INTERVAL_MS.
const regexBatchRefreshIntervalMs = 10_000

// resolvedRegex is Kafka's ResolvedRegularExpression.
type resolvedRegex struct {
	topics      []string // sorted
	version     uint64
	timestampMs int64
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

// regexesStale reports whether a refresh is due: some regex was resolved
// against other topic names, and the last resolution is older than the
// batch interval. The map is only aggregated, never iterated for output.
func regexesStale(rs map[string]resolvedRegex, version uint64, nowMs int64) bool {
	stale, last := false, int64(-1<<63)
	for _, r := range rs {
		stale = stale || r.version != version
		last = max(last, r.timestampMs)
	}
	return stale && nowMs > last+regexBatchRefreshIntervalMs
}

// regexRefreshDue is regexesStale for a stored group: its next heartbeat
// must take the slow path.
func (s *Shard) regexRefreshDue(g *group, nowMs int64) bool {
	return len(g.regexes) > 0 && regexesStale(g.regexes, s.topicNamesHash, nowMs)
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
	if re == "" || v.regexInUse(re) {
		return
	}
	if _, ok := v.regexes[re]; !ok {
		return
	}
	delete(v.regexesForWrite(), re)
	v.records = append(v.records, &ConsumerGroupRegularExpression{Group: v.id, Regex: re, Tombstone: true})
}

// updateRegularExpressions applies member i's SubscribedTopicRegex (nil:
// unchanged) and refreshes the group's regexes when due. It returns the
// regex records, whether the member changed, and whether the group epoch
// must be bumped (a new regex, or a refresh that changed some regex's
// topics). A new regex that does not compile fails the heartbeat.
func (v *view) updateRegularExpressions(nowMs int64, i int, regex *string) (records []Record, changed, bump bool, err error) {
	due := regexesStale(v.regexes, v.s.topicNamesHash, nowMs)
	m := v.members[i]
	resolvedNew := false
	if regex != nil && *regex != m.consumerPart().topicRegex {
		re := *regex
		var rx *regexp.Regexp
		if _, ok := v.regexes[re]; re != "" && !ok {
			if rx, err = compileTopicRegex(re); err != nil {
				return nil, false, false, err
			}
		}
		old := m.consumerPart().topicRegex
		m = v.own(i)
		m.setRegex(re, nil)
		changed, bump = true, true // hasMemberSubscriptionChanged
		if old != "" && !v.regexInUse(old) {
			if _, ok := v.regexes[old]; ok {
				delete(v.regexesForWrite(), old)
				records = append(records, &ConsumerGroupRegularExpression{Group: v.id, Regex: old, Tombstone: true})
			}
		}
		if rx != nil {
			r := resolvedRegex{topics: v.s.resolveRegex(rx), version: v.s.topicNamesHash, timestampMs: nowMs}
			v.regexesForWrite()[re] = r
			records = append(records, v.regexRecord(re, r))
			resolvedNew = true
		}
		if re != "" {
			m.setRegexTopics(v.regexes[re].topics)
		}
	}
	if !due && !resolvedNew {
		return records, changed, bump, nil
	}
	// refreshRegularExpressions: every regex resolved against other topic
	// names, in regex order.
	for _, re := range slices.Sorted(maps.Keys(v.regexes)) {
		old := v.regexes[re]
		if old.version == v.s.topicNamesHash {
			continue
		}
		rx, cerr := compileTopicRegex(re)
		if cerr != nil {
			continue // validated when it arrived; Kafka logs and ignores it
		}
		r := resolvedRegex{topics: v.s.resolveRegex(rx), version: v.s.topicNamesHash, timestampMs: nowMs}
		v.regexesForWrite()[re] = r
		records = append(records, v.regexRecord(re, r))
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
	return records, changed, bump, nil
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
	for _, m := range g.members {
		if m.consumerPart().topicRegex == r.Regex {
			m.setRegexTopics(topics)
		}
	}
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
