package plugin

import (
	"fmt"
	"slices"
	"strings"
)

// Limits on a TopologyDescription, checked by Validate. Kafka sets none, but a store
// must be able to hold any description that validates, and the simulator must be able
// to generate them, so both sides agree on these. Real topologies are far smaller.
const (
	MaxSubtopologies = 1 << 10 // subtopologies and global stores together
	MaxNodes         = 1 << 14 // nodes in the whole description
	MaxNameBytes     = 1 << 10 // any id, node, topic, pattern or store name
	MaxListLen       = 1 << 12 // any list of topics, stores or successors
)

// NodeKind is the kind of a node of a processing graph, with Kafka's codes.
type NodeKind uint8

// The node kinds.
const (
	NodeSource    NodeKind = 1 // reads topics (or a topic pattern)
	NodeProcessor NodeKind = 2 // processes records, may use state stores
	NodeSink      NodeKind = 3 // writes to a topic
)

// String returns Kafka's display name of the kind, e.g. "Source".
func (k NodeKind) String() string {
	switch k {
	case NodeSource:
		return "Source"
	case NodeProcessor:
		return "Processor"
	case NodeSink:
		return "Sink"
	default:
		return fmt.Sprintf("NodeKind(%d)", uint8(k))
	}
}

// MarshalText encodes the kind as "source", "processor" or "sink", so stored JSON reads
// as what it means.
func (k NodeKind) MarshalText() ([]byte, error) {
	switch k {
	case NodeSource, NodeProcessor, NodeSink:
		return []byte(strings.ToLower(k.String())), nil
	default:
		return nil, fmt.Errorf("%w: unknown node kind %d", ErrInvalidDescription, uint8(k))
	}
}

// UnmarshalText decodes what MarshalText produced and rejects anything else.
func (k *NodeKind) UnmarshalText(b []byte) error {
	switch string(b) {
	case "source":
		*k = NodeSource
	case "processor":
		*k = NodeProcessor
	case "sink":
		*k = NodeSink
	default:
		return fmt.Errorf("%w: unknown node kind %q", ErrInvalidDescription, b)
	}
	return nil
}

// Node is one node of a subtopology's processing graph (Kafka's
// TopologyDescription.Node). Which fields apply depends on Kind: a source has Topics
// or a TopicPattern, a processor may have Stores, a sink has a Topic. Edges are kept
// once, as Successors; Subtopology.Predecessors derives the other direction.
type Node struct {
	Name         string   `json:"name"`
	Kind         NodeKind `json:"kind"`
	Topics       []string `json:"topics,omitempty"`       // source: the topics it reads
	TopicPattern string   `json:"topicPattern,omitempty"` // source: or the pattern it subscribes to
	Topic        string   `json:"topic,omitempty"`        // sink: the topic it writes
	Stores       []string `json:"stores,omitempty"`       // processor: the state stores it uses
	Successors   []string `json:"successors,omitempty"`   // names of downstream nodes in the same subtopology
}

// Subtopology is one connected part of a topology; it becomes a set of tasks. Stores
// declares the state stores of the subtopology; each must be used by at least one of
// its processors.
type Subtopology struct {
	ID     string   `json:"id"`
	Nodes  []Node   `json:"nodes"`
	Stores []string `json:"stores,omitempty"`
}

// GlobalStore is a global state store: a source reading one topic and the processor
// that fills the store from it. It generates no tasks.
type GlobalStore struct {
	ID        string `json:"id"`
	Source    Node   `json:"source"`
	Processor Node   `json:"processor"`
}

// TopologyDescription is the full processing graph of a Kafka Streams application, as
// its members push it under KIP-1331 (StreamsGroupTopologyDescription): subtopologies
// with source, processor and sink nodes, their edges and state stores, and global
// stores. The zero value is not valid: a description has at least one subtopology or
// global store. Use Builder or SampleTopology to make one.
type TopologyDescription struct {
	Subtopologies []Subtopology `json:"subtopologies,omitempty"`
	GlobalStores  []GlobalStore `json:"globalStores,omitempty"`
}

// Predecessors returns the names of the nodes whose successors include name, in node
// order.
func (s *Subtopology) Predecessors(name string) []string {
	var out []string
	for i := range s.Nodes {
		if slices.Contains(s.Nodes[i].Successors, name) {
			out = append(out, s.Nodes[i].Name)
		}
	}
	return out
}

// StoreUsers returns the names of the processors that use store, in node order.
func (s *Subtopology) StoreUsers(store string) []string {
	var out []string
	for i := range s.Nodes {
		if s.Nodes[i].Kind == NodeProcessor && slices.Contains(s.Nodes[i].Stores, store) {
			out = append(out, s.Nodes[i].Name)
		}
	}
	return out
}

// NodeCount returns the number of nodes in d, global-store nodes included.
func (d *TopologyDescription) NodeCount() int {
	if d == nil {
		return 0
	}
	n := 2 * len(d.GlobalStores)
	for i := range d.Subtopologies {
		n += len(d.Subtopologies[i].Nodes)
	}
	return n
}

// Clone returns a deep copy of d that shares no memory with it; nil gives nil.
func (d *TopologyDescription) Clone() *TopologyDescription {
	if d == nil {
		return nil
	}
	c := &TopologyDescription{}
	if d.Subtopologies != nil {
		c.Subtopologies = make([]Subtopology, len(d.Subtopologies))
		for i, s := range d.Subtopologies {
			c.Subtopologies[i] = Subtopology{ID: s.ID, Stores: slices.Clone(s.Stores)}
			if s.Nodes != nil {
				c.Subtopologies[i].Nodes = make([]Node, len(s.Nodes))
				for j := range s.Nodes {
					c.Subtopologies[i].Nodes[j] = s.Nodes[j].clone()
				}
			}
		}
	}
	if d.GlobalStores != nil {
		c.GlobalStores = make([]GlobalStore, len(d.GlobalStores))
		for i, g := range d.GlobalStores {
			c.GlobalStores[i] = GlobalStore{ID: g.ID, Source: g.Source.clone(), Processor: g.Processor.clone()}
		}
	}
	return c
}

func (n *Node) clone() Node {
	c := *n
	c.Topics = slices.Clone(n.Topics)
	c.Stores = slices.Clone(n.Stores)
	c.Successors = slices.Clone(n.Successors)
	return c
}

// Equal reports whether d and o describe the same topology, field by field and in the
// same order. A nil list equals an empty one, so a description equals itself after an
// encoding round trip that drops empty lists. Two nil descriptions are equal.
func (d *TopologyDescription) Equal(o *TopologyDescription) bool {
	if d == nil || o == nil {
		return d == nil && o == nil
	}
	return slices.EqualFunc(d.Subtopologies, o.Subtopologies, func(a, b Subtopology) bool {
		return a.ID == b.ID && slices.Equal(a.Stores, b.Stores) && slices.EqualFunc(a.Nodes, b.Nodes, nodeEqual)
	}) && slices.EqualFunc(d.GlobalStores, o.GlobalStores, func(a, b GlobalStore) bool {
		return a.ID == b.ID && nodeEqual(a.Source, b.Source) && nodeEqual(a.Processor, b.Processor)
	})
}

func nodeEqual(a, b Node) bool {
	return a.Name == b.Name && a.Kind == b.Kind && a.TopicPattern == b.TopicPattern && a.Topic == b.Topic &&
		slices.Equal(a.Topics, b.Topics) && slices.Equal(a.Stores, b.Stores) && slices.Equal(a.Successors, b.Successors)
}

// String renders d the way Kafka's TopologyDescription.toString does, in stored
// order, so a description reads the same in coordsim's traces as in a Streams
// application's log:
//
//	Topologies:
//	   Sub-topology: 0
//	    Source: source (topics: [input])
//	      --> count
//	    Processor: count (stores: [counts])
//	      --> sink
//	      <-- source
//	    Sink: sink (topic: output)
//	      <-- count
//
// Global stores follow the subtopologies as "Sub-topology: ID for global store (will
// not generate tasks)". The rendering is deterministic: equal descriptions render the
// same.
func (d *TopologyDescription) String() string {
	if d == nil {
		return "<nil>"
	}
	var b strings.Builder
	b.WriteString("Topologies:\n ")
	for i := range d.Subtopologies {
		s := &d.Subtopologies[i]
		fmt.Fprintf(&b, "  Sub-topology: %s\n", s.ID)
		for j := range s.Nodes {
			writeNode(&b, &s.Nodes[j], s.Predecessors(s.Nodes[j].Name))
		}
		b.WriteString("\n")
	}
	for i := range d.GlobalStores {
		g := &d.GlobalStores[i]
		fmt.Fprintf(&b, "  Sub-topology: %s for global store (will not generate tasks)\n", g.ID)
		writeNode(&b, &g.Source, nil)
		writeNode(&b, &g.Processor, []string{g.Source.Name})
		b.WriteString("\n")
	}
	return b.String()
}

func writeNode(b *strings.Builder, n *Node, predecessors []string) {
	switch n.Kind {
	case NodeSource:
		if n.TopicPattern != "" {
			fmt.Fprintf(b, "    Source: %s (topicPattern: %s)\n", n.Name, n.TopicPattern)
		} else {
			fmt.Fprintf(b, "    Source: %s (topics: [%s])\n", n.Name, strings.Join(n.Topics, ", "))
		}
		fmt.Fprintf(b, "      --> %s\n", nodeNames(n.Successors))
	case NodeProcessor:
		fmt.Fprintf(b, "    Processor: %s (stores: [%s])\n", n.Name, strings.Join(n.Stores, ", "))
		fmt.Fprintf(b, "      --> %s\n", nodeNames(n.Successors))
		fmt.Fprintf(b, "      <-- %s\n", nodeNames(predecessors))
	case NodeSink:
		fmt.Fprintf(b, "    Sink: %s (topic: %s)\n", n.Name, n.Topic)
		fmt.Fprintf(b, "      <-- %s\n", nodeNames(predecessors))
	default:
		fmt.Fprintf(b, "    %s: %s\n", n.Kind, n.Name)
	}
}

// nodeNames is Kafka's rendering of an edge list: "none" when empty.
func nodeNames(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
