package difftest

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// KnownDivergence is a documented, open difference between coordsim and
// Kafka (docs/fidelity.md). A divergence it matches is counted under its
// name instead of failing the run. Entries are a table, not branches: a new
// one is a new row, and a fixed one is deleted with its fix.
type KnownDivergence struct {
	Name string
	// Why is the one-line reason, as docs/fidelity.md gives it.
	Why string
	// Match reports whether d is this divergence.
	Match func(d Divergence) bool
}

// Known lists the open divergences the runner explains, first match wins.
// None is a catch-all: each matches one cause, so a target difference
// nobody has reduced is unexplained.
var Known = []KnownDivergence{
	{
		Name:  "topic-recreated",
		Why:   "Kafka tells a re-created topic from the deleted one by its topic id; coordsim's assignments and offsets carry names only, so partitions a member still owns of the deleted incarnation look like the new topic's",
		Match: topicRecreated,
	},
	{
		Name:  "regex-refresh-after-load",
		Why:   "after a reload the two sides disagree on whether a loaded regular expression resolution is stale, so one resolves it again at the next refresh and writes its ConsumerGroupRegularExpression record, the other does not: Kafka compares the metadata image offsets a resolution and onLoaded saw (every image is newer, even one that changes nothing), coordsim compares the images' contents; open (--regex: 15 of the 10 000 once the generator reloaded mid classic rebalance)",
		Match: regexRefreshAfterLoad,
	},
	{
		Name: "streams-endpoint-unconfigured-crash",
		Why:  "Kafka 4.4 throws NoSuchElementException (UNKNOWN_SERVER_ERROR) building a streams heartbeat's endpoint-to-partitions answer while the group's topology is not configured (EndpointToPartitionsManager.endpointToPartitions calls configuredTopology().get()): a Kafka bug coordsim does not copy, it answers the endpoints with no partitions",
		Match: func(d Divergence) bool {
			_, ok := d.Ops[d.Step].(StreamsHeartbeat)
			return ok && d.Kafka.Error == "UNKNOWN_SERVER_ERROR" && strings.Contains(d.Kafka.Message, "NoSuchElementException") && d.Ours.Error == ""
		},
	},
	{
		Name: "streams-endpoint-deleted-topic-crash",
		Why:  "Kafka 4.4 throws IllegalStateException (\"Topic <name> not found in metadata image\", UNKNOWN_SERVER_ERROR) building a streams heartbeat's endpoint-to-partitions answer when a member with a user endpoint holds a task whose source topic the configured topology names but the image no longer has (EndpointToPartitionsManager.topicPartitionListForTask): a Kafka bug coordsim does not copy, it leaves the missing topic out of that member's partitions",
		Match: func(d Divergence) bool {
			_, ok := d.Ops[d.Step].(StreamsHeartbeat)
			return ok && d.Kafka.Error == "UNKNOWN_SERVER_ERROR" && strings.Contains(d.Kafka.Message, "IllegalStateException: Topic ") &&
				strings.HasSuffix(d.Kafka.Message, " not found in metadata image") && d.Ours.Error == ""
		},
	},
	{
		Name:  "classic-replaced-join-unanswered",
		Why:   "a classic member's JoinGroup while its earlier one is parked (a rebalance in progress) replaces the parked request: Kafka 4.4's ClassicGroup.updateMember swaps the member's join future without completing it, so the first request is never answered and its client waits out its request timeout: a leaked request, a Kafka bug coordsim declines to copy; it answers the replaced request REBALANCE_IN_PROGRESS, which a client handles by rejoining, as it would after the timeout (default seed 266, --share seeds 7513 and 7666 of the 10 000)",
		Match: classicReplacedJoinUnanswered,
	},
	{
		Name:  "classic-leader-id-order",
		Why:   "a classic group whose leader left picks the first member of its HashMap of members by id as the new leader (ClassicGroup.remove), and Kafka draws classic member ids at random where coordsim hashes them, so the two can name another leader (and send the member list to it) when a rebalance completes; the rest of the answers equal (--share seed 7666 of the 10 000; as classic-downgrade-leader)",
		Match: classicLeaderIDOrder,
	},
	{
		Name:  "classic-join-drops-empty-consumer-group",
		Why:   "Kafka 4.4's JoinGroup with a member id to an empty consumer group removes the group from memory (maybeDeleteEmptyConsumerGroup) and then answers UNKNOWN_MEMBER_ID with EMPTY_RESULT, dropping its tombstones: later writes find no group until a reload; a Kafka bug coordsim does not copy",
		Match: classicJoinDropsEmptyConsumerGroup,
	},
	{
		Name:  "classic-upgrade-without-protocol",
		Why:   "Kafka 4.4 throws NoSuchElementException (UNKNOWN_SERVER_ERROR) upgrading a classic group that has not chosen a protocol yet (its first rebalance still in progress): ConsumerGroup.fromClassicGroup reads classicGroup.protocolName().get(); a Kafka bug coordsim does not copy, it upgrades the group",
		Match: classicUpgradeWithoutProtocol,
	},
	{
		Name:  "classic-upgrade-member-lacks-protocol",
		Why:   "Kafka 4.4 throws IllegalArgumentException (UNKNOWN_SERVER_ERROR) upgrading a classic group one of whose members does not support the group's current protocol (a member that joined the rebalance in progress with another common protocol): ConsumerGroup.fromClassicGroup reads each member's ClassicGroupMember.metadata(protocolName), which throws, and convertToConsumerGroup catches only SchemaException; a Kafka bug coordsim does not copy, it refuses the upgrade as a malformed embedded protocol (GROUP_ID_NOT_FOUND)",
		Match: classicUpgradeMemberLacksProtocol,
	},
	{
		Name:  "classic-downgrade-leader",
		Why:   "a consumer group downgraded to a classic group gets as leader the member ClassicGroup.fromConsumerGroup adds first, in the order of the consumer group's TimelineHashMap of members by id; Kafka draws a classic member's id at random, coordsim hashes it and adds members in id order, so with two members or more the GroupMetadata record can name another leader (the rest of the record equal)",
		Match: classicDowngradeLeader,
	},
	{
		Name:  "classic-member-id-order",
		Why:   "a consumer group with a member whose id the coordinator generated (a classic member's): Kafka's server assignors visit members in hash-map order of their ids and Kafka draws the ids at random, so partitions are dealt in another order than coordsim's",
		Match: classicMemberIDOrder,
	},
	{
		Name:  "load-expiry-order-generated-id",
		Why:   "after a load Kafka arms a consumer group's session timers in the order of its TimelineHashMap of members (onLoaded), which slots members by their ids' hash codes, so members whose sessions end at the same instant expire in that order; a classic member's id is drawn at random by Kafka and hashed by coordsim, so which of them expires first (and whether the group downgrades on the way) differs, while the same members expire",
		Match: loadExpiryOrderGeneratedID,
	},
}

// explain names the known divergence d is, or "": entries named in skip
// are passed over.
func explain(d Divergence, skip []string) string {
	for _, k := range Known {
		if !slices.Contains(skip, k.Name) && k.Match(d) {
			return k.Name
		}
	}
	return ""
}

// CheckKnownNames returns an error naming the first of names that is not
// a Known entry.
func CheckKnownNames(names []string) error {
	for _, n := range names {
		if !slices.ContainsFunc(Known, func(k KnownDivergence) bool { return k.Name == n }) {
			return fmt.Errorf("no known divergence is named %q", n)
		}
	}
	return nil
}

// topicRecreated matches a divergence in a group that named a topic which
// was deleted and created again before the diverging op: the groups the
// op and both outcomes name must include one whose ops mention such a
// topic. A divergence in a group that never named one is not explained by
// it.
func topicRecreated(d Divergence) bool {
	recreated := recreatedTopics(d.Ops[:d.Step+1])
	if len(recreated) == 0 {
		return false
	}
	groups := map[string]bool{}
	if g := opGroup(d.Ops[d.Step]); g != "" {
		groups[g] = true
	}
	for _, text := range []string{EncodeOp(d.Ops[d.Step]), d.Kafka.canonical(), d.Ours.canonical()} {
		for _, m := range groupIDPattern.FindAllStringSubmatch(text, -1) {
			groups[m[1]] = true
		}
	}
	for _, op := range d.Ops[:d.Step+1] {
		text := EncodeOp(op)
		named := false
		for _, m := range groupIDPattern.FindAllStringSubmatch(text, -1) {
			named = named || groups[m[1]]
		}
		if !named {
			continue
		}
		for name := range recreated {
			if strings.Contains(text, strconv.Quote(name)) {
				return true
			}
		}
	}
	return false
}

// groupIDPattern finds the group ids a JSON text names.
var groupIDPattern = regexp.MustCompile(`"groupId":"([^"]*)"`)

// recreatedTopics are the topics some image of ops deletes and a later one
// creates again.
func recreatedTopics(ops []Op) map[string]bool {
	out := map[string]bool{}
	seen, gone := map[string]bool{}, map[string]bool{}
	for _, op := range ops {
		t, ok := op.(SetTopics)
		if !ok {
			continue
		}
		now := map[string]bool{}
		for _, x := range t.Topics {
			now[x.Name] = true
			if gone[x.Name] {
				out[x.Name] = true
			}
		}
		for n := range seen {
			if !now[n] {
				gone[n] = true
			}
		}
		seen = now
	}
	return out
}

// regexRefreshAfterLoad matches an Advance after a reload whose outcomes
// are equal but for ConsumerGroupRegularExpression records that one side
// wrote and the other did not: a refresh one side found due.
func regexRefreshAfterLoad(d Divergence) bool {
	if _, ok := d.Ops[d.Step].(Advance); !ok || d.Kafka.Error != "" || d.Ours.Error != "" {
		return false
	}
	if !slices.ContainsFunc(d.Ops[:d.Step], func(op Op) bool { _, ok := op.(Reload); return ok }) {
		return false
	}
	strip := func(o Outcome) (Outcome, int) {
		var kept []any
		n := 0
		for _, r := range o.Records {
			if t, _ := asMap(r)["type"].(string); t == "ConsumerGroupRegularExpression" {
				n++
				continue
			}
			kept = append(kept, r)
		}
		o.Records = kept
		return o, n
	}
	k, nk := strip(d.Kafka)
	o, no := strip(d.Ours)
	return (nk == 0) != (no == 0) && k.canonical() == o.canonical()
}
