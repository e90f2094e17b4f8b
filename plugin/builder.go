package plugin

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
)

// Builder makes a TopologyDescription the way Kafka's Topology API does: nodes are
// added with the names of their parents, and the builder keeps the successor edges.
// Calls chain; the first mistake is remembered and returned by Build, which also
// validates the result.
//
//	d, err := plugin.NewBuilder().
//		Subtopology("0").
//		AddSource("source", "input").
//		AddProcessor("count", "source").
//		AddStateStore("counts", "count").
//		AddSink("sink", "output", "count").
//		Build()
type Builder struct {
	d   TopologyDescription
	err error
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder { return &Builder{} }

// Subtopology starts a new subtopology; the nodes and stores added next belong to it.
func (b *Builder) Subtopology(id string) *Builder {
	if b.err == nil {
		b.d.Subtopologies = append(b.d.Subtopologies, Subtopology{ID: id})
	}
	return b
}

func (b *Builder) current(what, name string) *Subtopology {
	if b.err != nil {
		return nil
	}
	if len(b.d.Subtopologies) == 0 {
		b.err = fmt.Errorf("%w: %s %q added before any Subtopology", ErrInvalidDescription, what, name)
		return nil
	}
	return &b.d.Subtopologies[len(b.d.Subtopologies)-1]
}

// add appends n to the current subtopology and makes it a successor of each parent.
func (b *Builder) add(n Node, parents []string) *Builder {
	s := b.current("node", n.Name)
	if s == nil {
		return b
	}
	for _, p := range parents {
		i := slices.IndexFunc(s.Nodes, func(m Node) bool { return m.Name == p })
		if i < 0 {
			b.err = fmt.Errorf("%w: subtopology %q: node %q: parent %q is not a node of this subtopology", ErrInvalidDescription, s.ID, n.Name, p)
			return b
		}
		s.Nodes[i].Successors = append(s.Nodes[i].Successors, n.Name)
	}
	s.Nodes = append(s.Nodes, n)
	return b
}

// AddSource adds a source node reading topics.
func (b *Builder) AddSource(name string, topics ...string) *Builder {
	return b.add(Node{Name: name, Kind: NodeSource, Topics: slices.Clone(topics)}, nil)
}

// AddSourcePattern adds a source node subscribed to a topic pattern.
func (b *Builder) AddSourcePattern(name, pattern string) *Builder {
	return b.add(Node{Name: name, Kind: NodeSource, TopicPattern: pattern}, nil)
}

// AddProcessor adds a processor node downstream of parents.
func (b *Builder) AddProcessor(name string, parents ...string) *Builder {
	return b.add(Node{Name: name, Kind: NodeProcessor}, parents)
}

// AddSink adds a sink node writing topic, downstream of parents.
func (b *Builder) AddSink(name, topic string, parents ...string) *Builder {
	return b.add(Node{Name: name, Kind: NodeSink, Topic: topic}, parents)
}

// AddStateStore declares store in the current subtopology and connects it to the
// named processors, which must already be there.
func (b *Builder) AddStateStore(store string, processors ...string) *Builder {
	s := b.current("store", store)
	if s == nil {
		return b
	}
	s.Stores = append(s.Stores, store)
	for _, p := range processors {
		i := slices.IndexFunc(s.Nodes, func(m Node) bool { return m.Name == p })
		if i < 0 {
			b.err = fmt.Errorf("%w: subtopology %q: store %q: processor %q is not a node of this subtopology", ErrInvalidDescription, s.ID, store, p)
			return b
		}
		s.Nodes[i].Stores = append(s.Nodes[i].Stores, store)
	}
	return b
}

// AddGlobalStore adds a global store: a source named sourceName reading topic, feeding
// a processor named processorName that fills store.
func (b *Builder) AddGlobalStore(id, store, sourceName, topic, processorName string) *Builder {
	if b.err == nil {
		b.d.GlobalStores = append(b.d.GlobalStores, GlobalStore{
			ID:        id,
			Source:    Node{Name: sourceName, Kind: NodeSource, Topics: []string{topic}, Successors: []string{processorName}},
			Processor: Node{Name: processorName, Kind: NodeProcessor, Stores: []string{store}},
		})
	}
	return b
}

// Build returns the description, or the first mistake made while building it, or
// the first problem Validate finds. The Builder must not be used afterwards: the
// description shares its memory.
func (b *Builder) Build() (*TopologyDescription, error) {
	if b.err != nil {
		return nil, b.err
	}
	d := &b.d
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return d, nil
}

// MustBuild is Build for descriptions known to be valid, in tests and examples: it
// panics on an error.
func (b *Builder) MustBuild() *TopologyDescription {
	d, err := b.Build()
	if err != nil {
		panic(err)
	}
	return d
}

// SampleTopology returns a realistic, valid description with the given number of
// subtopologies (at least 1, at most MaxSubtopologies-1), shaped like what the Kafka
// Streams DSL generates: KSTREAM-* node names, repartition topics chaining the
// subtopologies, stateful aggregations with stores, occasional branches and, for
// some seeds, a global store. The same (seed, subtopologies) always gives the same
// description, and different seeds give different ones, so the simulator can use the
// topology epoch as the seed. It draws from its own generator seeded by seed, never
// from a shared one.
func SampleTopology(seed uint64, subtopologies int) *TopologyDescription {
	subtopologies = min(max(subtopologies, 1), MaxSubtopologies-1)
	r := rand.New(rand.NewPCG(seed, 0x6b69702d31333331)) // "kip-1331"
	app := fmt.Sprintf("app-%d", seed)
	seq := 0
	name := func(kind string) string {
		n := fmt.Sprintf("%s-%010d", kind, seq)
		seq++
		return n
	}
	steps := []string{"KSTREAM-MAPVALUES", "KSTREAM-FILTER", "KSTREAM-FLATMAPVALUES", "KSTREAM-PEEK", "KSTREAM-MAP", "KSTREAM-KEY-SELECT"}
	b := NewBuilder()
	input := fmt.Sprintf("input-%d", seed)
	for i := range subtopologies {
		b.Subtopology(strconv.Itoa(i))
		src := name("KSTREAM-SOURCE")
		b.AddSource(src, input)
		last := src
		for range 1 + r.IntN(3) {
			p := name(steps[r.IntN(len(steps))])
			b.AddProcessor(p, last)
			last = p
		}
		if r.IntN(2) == 0 {
			// A stateful aggregation, as groupByKey().count() generates.
			agg := name("KSTREAM-AGGREGATE")
			b.AddProcessor(agg, last)
			b.AddStateStore(fmt.Sprintf("KSTREAM-AGGREGATE-STATE-STORE-%010d", seq-1), agg)
			last = agg
		}
		if r.IntN(4) == 0 {
			// A branch writing to a side topic, as split() or a second to() does.
			b.AddSink(name("KSTREAM-SINK"), fmt.Sprintf("%s-side-%d", app, i), last)
		}
		if i < subtopologies-1 {
			input = fmt.Sprintf("%s-KSTREAM-REPARTITION-%010d-repartition", app, seq)
			b.AddSink(name("KSTREAM-SINK"), input, last)
		} else {
			b.AddSink(name("KSTREAM-SINK"), fmt.Sprintf("output-%d", seed), last)
		}
	}
	if seed%3 == 0 {
		b.AddGlobalStore(strconv.Itoa(subtopologies), fmt.Sprintf("global-store-%d", seed),
			name("KSTREAM-SOURCE"), fmt.Sprintf("global-%d", seed), name("KTABLE-SOURCE"))
	}
	d, err := b.Build()
	if err != nil {
		// The generator only makes valid shapes; reaching this is a bug here.
		panic(errors.Join(errors.New("plugin: SampleTopology built an invalid description"), err))
	}
	return d
}
