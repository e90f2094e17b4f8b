package shard

import "slices"

// The topic → groups index keeps a new metadata image from re-deriving
// every group of the shard. Of everything refresh derives, only a streams
// group's NOT_READY depends on the image (topologyReady), and only on the
// partition counts of the topics its topology names (imageTopics). So
// SetPreparedTopicImage re-derives the streams groups whose topology names
// a topic whose partition count changed, found through this index, instead
// of walking every group: a simulator that creates one streams
// application's internal topics at a time otherwise pays apps × groups.

// topicGroup is one entry of the index: a streams group whose current
// topology names topic.
type topicGroup struct {
	topic, group string
}

func lessTopicGroup(a, b topicGroup) bool {
	if a.topic != b.topic {
		return a.topic < b.topic
	}
	return a.group < b.group
}

// imageTopics is every topic name t mentions: the topics whose partition
// counts topologyReady reads (TestTopologyReadyReadsOnlyImageTopics), with
// repeats.
func (t *Topology) imageTopics(yield func(string) bool) {
	for i := range t.Subtopologies {
		st := &t.Subtopologies[i]
		for _, names := range [][]string{st.SourceTopics, st.RepartitionSinkTopics} {
			for _, n := range names {
				if !yield(n) {
					return
				}
			}
		}
		for _, infos := range [][]TopicInfo{st.RepartitionSourceTopics, st.StateChangelogTopics} {
			for _, ti := range infos {
				if !yield(ti.Name) {
					return
				}
			}
		}
	}
}

// indexTopology adds (or, with add false, removes) group's entries for
// the topics t names. Replay calls it wherever a streams group's topology
// changes, and removeGroup when the group goes.
func (s *Shard) indexTopology(group string, t *Topology, add bool) {
	if t == nil {
		return
	}
	for topic := range t.imageTopics {
		if add {
			s.topicGroups.ReplaceOrInsert(topicGroup{topic, group})
		} else {
			s.topicGroups.Delete(topicGroup{topic, group})
		}
	}
}

// changedTopics returns the topics whose partition count differs between
// the images old and new (added, removed or resized), sorted.
func changedTopics(old, new map[string]int32) []string {
	var out []string
	for name, n := range new {
		if old[name] != n {
			out = append(out, name)
		}
	}
	for name := range old {
		if _, ok := new[name]; !ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// groupsOnChangedTopics returns the ids of the groups the index lists
// under a topic whose partition count differs between the shard's image
// and p, sorted and without repeats. When p was prepared from the image
// the shard holds (PrepareTopicImageFrom), the changed topics are p's
// list; otherwise the index is walked, which costs the shard's indexed
// topics rather than the image's.
func (s *Shard) groupsOnChangedTopics(p *PreparedTopicImage) []string {
	if s.topicGroups.Len() == 0 {
		return nil
	}
	var ids []string
	if p.base != nil && p.base == s.imageID {
		for _, topic := range p.changed {
			s.topicGroups.AscendGreaterOrEqual(topicGroup{topic: topic}, func(e topicGroup) bool {
				if e.topic != topic {
					return false
				}
				ids = append(ids, e.group)
				return true
			})
		}
	} else {
		last, changed := "", false
		s.topicGroups.Ascend(func(e topicGroup) bool {
			if e.topic != last || last == "" {
				last, changed = e.topic, s.topics[e.topic] != p.topics[e.topic]
			}
			if changed {
				ids = append(ids, e.group)
			}
			return true
		})
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// forgetReady drops the topologyReady memo of the given groups'
// topologies. Every topology the memo can be asked about again is a
// current topology of a group here: a replaced one is never a group's
// again (replay installs a new copy, and Clone starts an empty memo), and a
// joining member's topology is a fresh copy asked about only within its
// heartbeat. So dropping the changed groups' entries leaves only answers
// the new image gives too.
func (s *Shard) forgetReady(ids []string) {
	if len(s.ready) == 0 {
		return
	}
	for _, id := range ids {
		if g := s.lookup(id); g != nil && g.topology != nil {
			delete(s.ready, g.topology)
		}
	}
}

// PrepareTopicImageFrom is PrepareTopicImage for the image that follows
// base: it also records which topics changed their partition count, so a
// shard that holds base installs the result by re-deriving only the groups
// on those topics. A nil base is PrepareTopicImage.
func PrepareTopicImageFrom(base *PreparedTopicImage, image TopicImage) (*PreparedTopicImage, error) {
	p, err := PrepareTopicImage(image)
	if err != nil || base == nil {
		return p, err
	}
	p.base, p.changed = base.id, changedTopics(base.topics, p.topics)
	return p, nil
}

// imageID names one prepared image, so a later one can say which image it
// was prepared from without keeping it (and its predecessors) alive. It
// has a size: pointers to distinct zero-size objects may be equal.
type imageID struct{ _ byte }
