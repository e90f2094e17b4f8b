package shard

// Kafka 4.4's refined-assignment cache of a streams group
// (StreamsGroup.refinedAssignment, a TimelineObject): the assignment each
// member reconciles toward is the target "refined" with warm-up tasks
// (AssignmentRefiner.refine, which 4.4.0 leaves the target unchanged),
// cached per assignment epoch while group.streams.num.warmup.replicas is
// above 0 (Kafka's default, 2; coordsim has no warm-up replicas, so the
// cache is always on). A heartbeat of a Stable group that changes nothing
// refreshes the cache from the group's targets; any other heartbeat reads
// the cache when it holds the assignment epoch, else fills it from the
// targets it computed or kept. A member's removal leaves its cached tasks,
// so a member that leaves and joins again under its id while the
// assignment epoch stays (the assignment interval holds the target) takes
// its old tasks back; a static member replaced by another id passes its
// cached tasks on (relabelRefinedAssignment). Like Kafka's, the cache is
// not in the log: a load starts without one, and a failed write keeps the
// one before (the coordinator restores the shard).

// refinedAssignment is one cached refined assignment: member id to tasks,
// at an assignment epoch. Immutable once built.
type refinedAssignment struct {
	epoch   int32
	targets map[string]taskSets
}

// viewTargets snapshots the view's member targets.
func viewTargets(v *view) map[string]taskSets {
	out := make(map[string]taskSets, len(v.members))
	for _, m := range v.members {
		out[m.id] = m.targets()
	}
	return out
}

// groupTargets snapshots the group's own targets (before this
// heartbeat's changes: Kafka's group.targetAssignment()).
func groupTargets(g *group) map[string]taskSets {
	out := make(map[string]taskSets, len(g.members))
	for id, m := range g.members {
		out[id] = m.targets()
	}
	return out
}

// holds reports whether the cache is the group's targets, member for
// member.
func (c *refinedAssignment) holds(g *group) bool {
	if len(c.targets) != len(g.members) {
		return false
	}
	for id, m := range g.members {
		t, ok := c.targets[id]
		if cur := m.targets(); !ok || !t.equal(&cur) {
			return false
		}
	}
	return true
}

// refinedTarget is the tasks member i of a streams heartbeat reconciles
// toward at targetEpoch, and sets v.refined to the cache the heartbeat
// leaves (nil: unchanged). bump says the heartbeat updated the group
// (Kafka's assignmentUpdate other than NONE).
func (v *view) refinedTarget(i int, targetEpoch int32, bump bool, replaced *member) taskSets {
	live := v.members[i].targets()
	g := v.g
	if g == nil {
		return live // a group this heartbeat creates: Kafka's is transient
	}
	cache := g.refined
	if replaced != nil && cache != nil {
		if t, ok := cache.targets[replaced.id]; ok {
			relabeled := make(map[string]taskSets, len(cache.targets))
			for id, ts := range cache.targets {
				if id != replaced.id {
					relabeled[id] = ts
				}
			}
			relabeled[v.members[i].id] = t
			cache = &refinedAssignment{epoch: cache.epoch, targets: relabeled}
		}
	}
	switch {
	case !bump && g.state == StateStable:
		// refineAssignment over the group's targets, cached again; a
		// cache that holds them already stays, so a heartbeat that
		// changes nothing copies nothing.
		if cache == nil || cache.epoch != targetEpoch || !cache.holds(g) {
			v.refined = &refinedAssignment{epoch: targetEpoch, targets: groupTargets(g)}
		} else if cache != g.refined {
			v.refined = cache
		}
		return live
	case cache != nil && cache.epoch == targetEpoch:
		if cache != g.refined {
			v.refined = cache // relabeled
		}
		return cache.targets[v.members[i].id]
	default:
		v.refined = &refinedAssignment{epoch: targetEpoch, targets: viewTargets(v)}
		return live
	}
}
