package plugin

import (
	"fmt"
	"unicode/utf8"
)

// Validate reports the first problem that makes d an impossible Kafka Streams
// topology, naming where it is (subtopology, node, store) and what is wrong. The error
// wraps ErrInvalidDescription, so it is permanent. Problems are looked for in a fixed
// order, so the same description always gives the same error.
//
// A valid description has at least one subtopology or global store and stays within
// the Max* limits; ids, node names and store names are non-empty and unique across the
// whole description; every subtopology has a source, every processor and sink has a
// predecessor, and the successor edges form a DAG over nodes of the same subtopology;
// a source reads topics or a pattern (not both), a sink writes one topic and has no
// successors, only processors use stores; each declared store is used by a processor
// and each used store is declared; a global store is a one-topic source feeding a
// processor that uses exactly one store.
func (d *TopologyDescription) Validate() error {
	if d == nil {
		return fmt.Errorf("%w: nil description", ErrInvalidDescription)
	}
	if len(d.Subtopologies)+len(d.GlobalStores) == 0 {
		return fmt.Errorf("%w: no subtopologies and no global stores", ErrInvalidDescription)
	}
	if n := len(d.Subtopologies) + len(d.GlobalStores); n > MaxSubtopologies {
		return fmt.Errorf("%w: %d subtopologies and global stores exceed %d", ErrInvalidDescription, n, MaxSubtopologies)
	}
	if n := d.NodeCount(); n > MaxNodes {
		return fmt.Errorf("%w: %d nodes exceed %d", ErrInvalidDescription, n, MaxNodes)
	}
	v := validator{
		ids:    make(map[string]bool),
		nodes:  make(map[string]string),
		stores: make(map[string]string),
	}
	for i := range d.Subtopologies {
		if err := v.subtopology(&d.Subtopologies[i]); err != nil {
			return err
		}
	}
	for i := range d.GlobalStores {
		if err := v.globalStore(&d.GlobalStores[i]); err != nil {
			return err
		}
	}
	return nil
}

// validator remembers the names seen so far, to catch duplicates across
// subtopologies. Maps are only looked up, never iterated, so the order of problems
// found does not depend on them.
type validator struct {
	ids    map[string]bool
	nodes  map[string]string // node name -> id of the subtopology that has it
	stores map[string]string // store name -> id of the subtopology that declares it
}

func invalid(where, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalidDescription, where, fmt.Sprintf(format, args...))
}

// checkName checks one name of the description.
func checkName(where, what, name string) error {
	switch {
	case name == "":
		return invalid(where, "empty %s", what)
	case len(name) > MaxNameBytes:
		return invalid(where, "%s of %d bytes exceeds %d", what, len(name), MaxNameBytes)
	case !utf8.ValidString(name):
		return invalid(where, "%s %q is not valid UTF-8", what, name)
	}
	return nil
}

// checkList checks a list of names: each valid, none repeated, not too long.
func checkList(where, what string, names []string) error {
	if len(names) > MaxListLen {
		return invalid(where, "%d %ss exceed %d", len(names), what, MaxListLen)
	}
	for i, n := range names {
		if err := checkName(where, what, n); err != nil {
			return err
		}
		for _, m := range names[:i] {
			if m == n {
				return invalid(where, "duplicate %s %q", what, n)
			}
		}
	}
	return nil
}

func (v *validator) id(where, id string) error {
	if err := checkName(where, "id", id); err != nil {
		return err
	}
	if v.ids[id] {
		return invalid(where, "duplicate subtopology id")
	}
	v.ids[id] = true
	return nil
}

func (v *validator) nodeName(where, subtopology, name string) error {
	if err := checkName(where, "node name", name); err != nil {
		return err
	}
	if other, dup := v.nodes[name]; dup {
		if other == subtopology {
			return invalid(where, "duplicate node name %q", name)
		}
		return invalid(where, "node name %q is also used in subtopology %q", name, other)
	}
	v.nodes[name] = subtopology
	return nil
}

func (v *validator) storeName(where, subtopology, name string) error {
	if err := checkName(where, "store name", name); err != nil {
		return err
	}
	if other, dup := v.stores[name]; dup {
		if other == subtopology {
			return invalid(where, "duplicate store %q", name)
		}
		return invalid(where, "store %q is also declared by subtopology %q", name, other)
	}
	v.stores[name] = subtopology
	return nil
}

// node checks the fields of one node against its kind.
func node(where string, n *Node) error {
	switch n.Kind {
	case NodeSource:
		switch {
		case len(n.Topics) == 0 && n.TopicPattern == "":
			return invalid(where, "source without topics or a topic pattern")
		case len(n.Topics) > 0 && n.TopicPattern != "":
			return invalid(where, "source with both topics and a topic pattern")
		case n.Topic != "":
			return invalid(where, "source with a sink topic %q", n.Topic)
		case len(n.Stores) > 0:
			return invalid(where, "source with stores")
		}
		if n.TopicPattern != "" {
			return checkName(where, "topic pattern", n.TopicPattern)
		}
		return checkList(where, "topic", n.Topics)
	case NodeProcessor:
		switch {
		case len(n.Topics) > 0 || n.TopicPattern != "":
			return invalid(where, "processor with source topics")
		case n.Topic != "":
			return invalid(where, "processor with a sink topic %q", n.Topic)
		}
		return checkList(where, "store", n.Stores)
	case NodeSink:
		switch {
		case n.Topic == "":
			return invalid(where, "sink without topic")
		case len(n.Topics) > 0 || n.TopicPattern != "":
			return invalid(where, "sink with source topics")
		case len(n.Stores) > 0:
			return invalid(where, "sink with stores")
		case len(n.Successors) > 0:
			return invalid(where, "sink with successors %q", n.Successors)
		}
		return checkName(where, "topic", n.Topic)
	default:
		return invalid(where, "unknown node kind %d", uint8(n.Kind))
	}
}

func (v *validator) subtopology(s *Subtopology) error {
	where := fmt.Sprintf("subtopology %q", s.ID)
	if err := v.id(where, s.ID); err != nil {
		return err
	}
	if len(s.Nodes) == 0 {
		return invalid(where, "no nodes")
	}
	index := make(map[string]int, len(s.Nodes))
	for i := range s.Nodes {
		n := &s.Nodes[i]
		nw := fmt.Sprintf("%s: node %q", where, n.Name)
		if err := v.nodeName(where, s.ID, n.Name); err != nil {
			return err
		}
		if err := node(nw, n); err != nil {
			return err
		}
		index[n.Name] = i
	}
	if err := checkList(where, "store", s.Stores); err != nil {
		return err
	}
	for _, st := range s.Stores {
		if err := v.storeName(where, s.ID, st); err != nil {
			return err
		}
	}
	// Edges, with in-degrees for the source/predecessor and cycle checks below.
	inDegree := make([]int, len(s.Nodes))
	hasSource := false
	for i := range s.Nodes {
		n := &s.Nodes[i]
		nw := fmt.Sprintf("%s: node %q", where, n.Name)
		if err := checkList(nw, "successor", n.Successors); err != nil {
			return err
		}
		for _, succ := range n.Successors {
			j, ok := index[succ]
			switch {
			case !ok:
				return invalid(nw, "successor %q is not a node of this subtopology", succ)
			case j == i:
				return invalid(nw, "is its own successor")
			case s.Nodes[j].Kind == NodeSource:
				return invalid(nw, "successor %q is a source", succ)
			}
			inDegree[j]++
		}
		for _, st := range n.Stores {
			if v.stores[st] != s.ID {
				return invalid(nw, "uses store %q that this subtopology does not declare", st)
			}
		}
		if n.Kind == NodeSource {
			hasSource = true
		}
	}
	if !hasSource {
		return invalid(where, "no source node")
	}
	for i := range s.Nodes {
		if s.Nodes[i].Kind != NodeSource && inDegree[i] == 0 {
			return invalid(fmt.Sprintf("%s: node %q", where, s.Nodes[i].Name), "%s without a predecessor", lower(s.Nodes[i].Kind))
		}
	}
	for _, st := range s.Stores {
		if len(s.StoreUsers(st)) == 0 {
			return invalid(where, "store %q is used by no processor", st)
		}
	}
	if name, ok := cycle(s, index, inDegree); ok {
		return invalid(fmt.Sprintf("%s: node %q", where, name), "is on a cycle of successor edges")
	}
	return nil
}

// cycle reports a node on a cycle of s's successor edges, if there is one. It peels
// off nodes of in-degree zero (Kahn); the nodes left over are on a cycle or
// downstream of one, and walking predecessors among them from the first in node order
// must come back to a node already visited, which is on a cycle. Deterministic: it
// only walks slices.
func cycle(s *Subtopology, index map[string]int, inDegree []int) (string, bool) {
	deg := append([]int(nil), inDegree...)
	queue := make([]int, 0, len(s.Nodes))
	for i := range deg {
		if deg[i] == 0 {
			queue = append(queue, i)
		}
	}
	for k := 0; k < len(queue); k++ {
		for _, succ := range s.Nodes[queue[k]].Successors {
			j := index[succ]
			if deg[j]--; deg[j] == 0 {
				queue = append(queue, j)
			}
		}
	}
	if len(queue) == len(s.Nodes) {
		return "", false
	}
	start := -1
	for i := range deg {
		if deg[i] > 0 {
			start = i
			break
		}
	}
	seen := make([]bool, len(s.Nodes))
	for at := start; ; {
		if seen[at] {
			return s.Nodes[at].Name, true
		}
		seen[at] = true
		// Some predecessor of a left-over node is left over too, else its in-degree
		// would have reached zero.
		for _, p := range s.Predecessors(s.Nodes[at].Name) {
			if j := index[p]; deg[j] > 0 {
				at = j
				break
			}
		}
	}
}

func (v *validator) globalStore(g *GlobalStore) error {
	where := fmt.Sprintf("global store %q", g.ID)
	if err := v.id(where, g.ID); err != nil {
		return err
	}
	src, proc := &g.Source, &g.Processor
	sw := fmt.Sprintf("%s: node %q", where, src.Name)
	pw := fmt.Sprintf("%s: node %q", where, proc.Name)
	if err := v.nodeName(where, g.ID, src.Name); err != nil {
		return err
	}
	if err := v.nodeName(where, g.ID, proc.Name); err != nil {
		return err
	}
	switch {
	case src.Kind != NodeSource:
		return invalid(sw, "global store source is a %s", lower(src.Kind))
	case proc.Kind != NodeProcessor:
		return invalid(pw, "global store processor is a %s", lower(proc.Kind))
	case len(src.Topics) != 1:
		return invalid(sw, "global store source must read exactly one topic, not %d", len(src.Topics))
	case len(src.Successors) != 1 || src.Successors[0] != proc.Name:
		return invalid(sw, "global store source must have exactly the successor %q", proc.Name)
	case len(proc.Successors) != 0:
		return invalid(pw, "global store processor with successors")
	case len(proc.Stores) != 1:
		return invalid(pw, "global store processor must use exactly one store, not %d", len(proc.Stores))
	}
	if err := node(sw, src); err != nil {
		return err
	}
	if err := node(pw, proc); err != nil {
		return err
	}
	return v.storeName(pw, g.ID, proc.Stores[0])
}

func lower(k NodeKind) string {
	switch k {
	case NodeSource:
		return "source"
	case NodeProcessor:
		return "processor"
	case NodeSink:
		return "sink"
	default:
		return k.String()
	}
}
