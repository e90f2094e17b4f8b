package shard

import "github.com/coordsim/coordsim/kerr"

// topologyOnJoin decides what a streams member's join does to the group's
// topology, as GroupMetadataManager.maybeUpdateTopology does in Kafka trunk:
// the first topology initializes the group; an older epoch joins with a stale
// topology (the member is told STALE_TOPOLOGY) and leaves the group's alone;
// the group's own topology changes nothing; anything else, a different
// topology at the same epoch or any topology at a higher epoch, is
// INVALID_REQUEST "Topology updates are not supported yet.".
//
// Config.StreamsTopologyUpdates opts in to what Kafka does not do yet (and
// KIP-1331 plans for): a higher epoch replaces the group's topology, and a
// different topology at the same epoch is STREAMS_INVALID_TOPOLOGY_EPOCH.
// It returns whether t becomes the group's topology.
func (s *Shard) topologyOnJoin(current *Topology, t *Topology) (bool, error) {
	switch {
	case current == nil:
		return true, nil
	case t.Epoch < current.Epoch:
		return false, nil
	case topologyEqual(t, current):
		return false, nil
	case !s.cfg.StreamsTopologyUpdates:
		return false, kerr.InvalidRequest.WithMessage("Topology updates are not supported yet.")
	case t.Epoch > current.Epoch:
		return true, nil
	}
	return false, kerr.StreamsInvalidTopologyEpoch.WithMessage("topology changed without an epoch bump (epoch %d)", t.Epoch)
}
