package sim

import (
	"fmt"
	"maps"
	"slices"

	"github.com/coordsim/coordsim/shard"
)

// Racks (KIP-848's rack-aware assignment). With workload.racks = N > 0 the
// data replicas live on N racks: each partition of each topic has two
// replicas on neighbouring racks chosen from the seed, the topic and the
// partition when N is 3 or more, else one (with two racks, two replicas
// would put every partition on both, and racks would tell nothing apart).
// Every consumer, share and streams member names a client.rack chosen from
// the seed, its group and its host (member id, static instance or stream
// process); one member in eight names none, as a client without
// client.rack. A share of the consumer groups (workload.range_prob) name
// the range server assignor, whose rack matching gives a member the
// partitions with a replica on its rack (Kafka's RangeAssignor); uniform
// ignores racks, as trunk's does. All of these follow from hashes, not
// draws, so they change no other choice of a run.
//
// The admin also moves replicas: on an admin tick, with probability
// rackMoveProb, one topic's replicas shift to the next racks, as a
// partition reassignment would. The topic's metadata hash covers its racks
// (Kafka's computeTopicHash), so every group reading it gets a new group
// epoch and a new target, which the checker's invariants then follow.

// rangeName is the range assignor's name, for ServerAssignor.
var rangeName = "range"

// rackMoveProb is the chance an admin tick moves one topic's replicas.
const rackMoveProb = 0.2

// memberRackless is one in memberRackless members naming no rack.
const memberRackless = 8

func rackName(i int) string { return fmt.Sprintf("rack-%c", 'a'+rune(i)) }

// topicImage is the metadata image every coordinator gets: the topics and,
// with racks, each partition's replica racks (memoised per topic).
func (w *world) topicImage() shard.TopicImage {
	n := w.opts.Workload.Racks
	if n <= 0 {
		return shard.TopicImage{Partitions: w.topics}
	}
	racks := make(map[string][][]string, len(w.topics))
	for t, parts := range w.topics {
		rs := w.rackCache[t]
		if len(rs) != int(parts) {
			rs = make([][]string, parts)
			for p := range rs {
				first := int(splitmix64(w.opts.Seed^hashString(t)^splitmix64(uint64(p)+0x7261636b)) % uint64(n))
				first = (first + w.rackShift[t]) % n
				rs[p] = []string{rackName(first)}
				if n > 2 {
					rs[p] = append(rs[p], rackName((first+1)%n))
				}
			}
			if w.rackCache == nil {
				w.rackCache = map[string][][]string{}
			}
			w.rackCache[t] = rs
		}
		racks[t] = rs
	}
	return shard.TopicImage{Partitions: w.topics, Racks: racks}
}

// installTopicImage gives every coordinator, and the checker's committed
// replicas (invariant 10), the current image, prepared from the last.
func (w *world) installTopicImage() {
	prepared, err := shard.PrepareTopicImageFrom(w.image, w.topicImage())
	if err != nil {
		panic(fmt.Sprintf("sim: preparing the topic image: %v", err))
	}
	w.image = prepared
	for _, b := range w.brokers {
		b.c.SetPreparedTopicImage(prepared)
	}
	for _, p := range slices.Sorted(maps.Keys(w.check.rules.replicas)) {
		w.check.rules.replicas[p].s.SetPreparedTopicImage(prepared)
	}
}

// memberRack is the client.rack member id of group names ("" for none).
func (w *world) memberRack(group, member string) string {
	n := w.opts.Workload.Racks
	if n <= 0 {
		return ""
	}
	h := splitmix64(w.opts.Seed ^ hashString(group) ^ splitmix64(hashString(member)))
	if h%memberRackless == 0 {
		return ""
	}
	return rackName(int((h / memberRackless) % uint64(n)))
}

// usesRange reports whether the i-th consumer group names the range
// assignor (a share range_prob of them, from the seed).
func usesRange(seed uint64, i int, prob float64) bool {
	if prob <= 0 {
		return false
	}
	h := splitmix64(seed ^ splitmix64(uint64(i)+0x72616e6765))
	return float64(h>>11)/(1<<53) < prob
}

// maybeMoveRacks is the admin's replica move: one topic of the workload's
// shifts its replicas to the next racks.
func (w *world) maybeMoveRacks() {
	if w.opts.Workload.Racks < 2 || !w.eng.chance(rackMoveProb) {
		return
	}
	t := w.pick[w.eng.rng.IntN(len(w.pick))]
	if w.rackShift == nil {
		w.rackShift = map[string]int{}
	}
	w.rackShift[t]++
	delete(w.rackCache, t)
	w.installTopicImage()
	w.mark("partition-racks-moved")
	w.client(tResponse, "", "", "replicas of "+t+" moved to the next racks")
}

// markRackMatched marks a range group's member that holds two or more
// partitions, every one with a replica on its rack, of a topic where some
// partitions have none there: what the rack matching is for (chance alone
// gives that to one member in five or fewer). It is evidence the path is
// reached; the rack pass itself is proven by the assignor's tests.
func (w *world) markRackMatched(m *simMember) {
	if !m.g.rangeAssignor || m.rack == "" || w.opts.Workload.Racks < 2 {
		return
	}
	for _, tp := range m.assigned {
		racks := w.rackCache[tp.Topic]
		if len(tp.Partitions) < 2 || len(racks) == 0 {
			continue
		}
		local := 0
		for _, rs := range racks {
			if slices.Contains(rs, m.rack) {
				local++
			}
		}
		all := local < len(racks)
		for _, p := range tp.Partitions {
			all = all && int(p) < len(racks) && slices.Contains(racks[p], m.rack)
		}
		if all {
			w.mark("range-rack-matched")
			return
		}
	}
}

// hashString is FNV-1a over s.
func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}
