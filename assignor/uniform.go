package assignor

// UniformName is the uniform assignor's name (Kafka's UniformAssignor.NAME).
const UniformName = "uniform"

// Uniform is Kafka's UniformAssignor: balanced and sticky. It runs the
// homogeneous builder when every member subscribes to the same topics and
// the heterogeneous builder otherwise.
type Uniform struct{}

// Name returns "uniform".
func (Uniform) Name() string { return UniformName }

// Assign computes the target assignment (UniformAssignor.assign).
func (Uniform) Assign(spec *Spec) (Target, error) {
	m, err := newModel(spec, func(topic string) error {
		return assignorError("Members are subscribed to topic %s which doesn't exist in the topic metadata.", topic)
	})
	if err != nil {
		return nil, err
	}
	renumbered := m.kafkaOrder()
	var target Target
	if m.homogeneous {
		if target, err = m.uniformHomogeneous(); err != nil {
			return nil, err
		}
	} else {
		target = m.uniformHeterogeneous()
	}
	if renumbered {
		target = sortTarget(target)
	}
	return target, nil
}

// uniformHomogeneous is Kafka 4.4's UniformHomogeneousAssignmentBuilder:
// each member has a quota of total/members partitions, and total%members
// of them one more. Visiting the members in order, a member keeps its
// current partitions up to its quota (topic by topic, a topic it cannot
// keep whole partition by partition) and gives back the rest. A member
// that kept too few to need an extra partition gives its claim on one
// back when the members still to come (itself included) outnumber the
// extra partitions left, so an already balanced assignment never moves.
// The partitions left over (first the ones nobody owned, then the given
// back ones, each in the order they were queued) go to the unfilled
// members in member order, each up to its remaining quota.
func (m *model) uniformHomogeneous() (Target, error) {
	owners := m.newOwners()
	if len(m.members) == 0 || len(m.members[0].subs) == 0 {
		return m.target(owners), nil
	}
	subs := m.members[0].subs
	total := 0
	for _, t := range subs {
		total += int(m.topics[t].Partitions)
	}
	// A partition is unassigned either because nobody owned it
	// (groupSpec.isPartitionAssigned) or because its owner gives it back,
	// never both: total bounds the list.
	unassigned := make([]topicPartition, 0, total)
	for _, t := range subs {
		n := m.topics[t].Partitions
		for p := int32(0); p < n; p++ {
			if m.currentOwners[t][p] < 0 {
				unassigned = append(unassigned, topicPartition{t, p})
			}
		}
	}
	minQuota := total / len(m.members)
	extra := total % len(m.members)

	type unfilled struct {
		member int
		quota  int
	}
	var open []unfilled
	// maybeRevokePartitions
	for i, x := range m.members {
		quota := minQuota
		hasExtra := false
		if extra > 0 {
			quota++
			hasExtra = true
		}
		for _, o := range x.current {
			if !subscribed(subs, o.topic) {
				continue // the whole topic is revoked
			}
			if len(o.parts) <= quota {
				quota -= len(o.parts)
				for _, p := range o.parts {
					owners[o.topic][p] = int32(i)
				}
				continue
			}
			for _, p := range o.parts {
				if quota > 0 {
					quota--
					owners[o.topic][p] = int32(i)
				} else {
					unassigned = append(unassigned, topicPartition{o.topic, p})
				}
			}
		}
		if quota > 0 && hasExtra && len(m.members)-i > extra {
			// Give up the extra partition for a member still to come.
			quota--
			hasExtra = false
		}
		if quota > 0 {
			open = append(open, unfilled{i, quota})
		}
		if hasExtra {
			extra--
		}
	}
	// assignRemainingPartitions
	next := 0
	for _, u := range open {
		for q := 0; q < u.quota && next < len(unassigned); q++ {
			tp := unassigned[next]
			next++
			owners[tp.topic][tp.partition] = int32(u.member)
		}
	}
	if next < len(unassigned) {
		return nil, assignorError("Partitions were left unassigned")
	}
	return m.target(owners), nil
}
