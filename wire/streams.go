package wire

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/shard"
)

// descriptionFromWire converts KIP-1331's wire TopologyDescription into the
// store's. The wire has no global-store ids; each gets the id after the
// last subtopology's position, as Kafka Streams numbers a global store's
// sub-topology after the others. A source's topic pattern does not travel
// on the wire either: such a source arrives with no topics.
func descriptionFromWire(d kmsg.TopologyDescription) *plugin.TopologyDescription {
	node := func(n kmsg.TopologyDescriptionNode) plugin.Node {
		out := plugin.Node{Name: n.Name, Kind: plugin.NodeKind(n.NodeType), Topics: n.SourceTopics, Stores: n.Stores, Successors: n.Successors}
		if n.SinkTopic != nil {
			out.Topic = *n.SinkTopic
		}
		return out
	}
	out := &plugin.TopologyDescription{}
	for _, s := range d.Subtopologies {
		sub := plugin.Subtopology{ID: s.SubtopologyID}
		stores := map[string]bool{}
		for _, n := range s.Nodes {
			sub.Nodes = append(sub.Nodes, node(n))
			for _, st := range n.Stores {
				if !stores[st] {
					stores[st] = true
					sub.Stores = append(sub.Stores, st)
				}
			}
		}
		out.Subtopologies = append(out.Subtopologies, sub)
	}
	for i, g := range d.GlobalStores {
		out.GlobalStores = append(out.GlobalStores, plugin.GlobalStore{
			ID: fmt.Sprint(len(d.Subtopologies) + i), Source: node(g.Source), Processor: node(g.Processor),
		})
	}
	return out
}

// descriptionToWire is descriptionFromWire's inverse (global-store ids and
// topic patterns dropped).
func descriptionToWire(d *plugin.TopologyDescription) *kmsg.StreamsGroupDescribeResponseGroupTopologyDescription {
	node := func(n plugin.Node) kmsg.TopologyDescriptionNode {
		out := kmsg.NewTopologyDescriptionNode()
		out.Name, out.NodeType, out.SourceTopics, out.Stores, out.Successors = n.Name, int8(n.Kind), n.Topics, n.Stores, n.Successors
		if n.Kind == plugin.NodeSink {
			t := n.Topic
			out.SinkTopic = &t
		}
		return out
	}
	out := kmsg.NewStreamsGroupDescribeResponseGroupTopologyDescription()
	for _, s := range d.Subtopologies {
		sub := kmsg.NewTopologyDescriptionSubtopology()
		sub.SubtopologyID = s.ID
		for _, n := range s.Nodes {
			sub.Nodes = append(sub.Nodes, node(n))
		}
		out.Subtopologies = append(out.Subtopologies, sub)
	}
	for _, g := range d.GlobalStores {
		gs := kmsg.NewTopologyDescriptionGlobalStore()
		gs.Source, gs.Processor = node(g.Source), node(g.Processor)
		out.GlobalStores = append(out.GlobalStores, gs)
	}
	return &out
}

func tasksToWire(tasks []shard.TaskIDs) []kmsg.TaskIDs {
	out := []kmsg.TaskIDs{}
	for _, t := range tasks {
		k := kmsg.NewTaskIDs()
		k.SubtopologyID, k.Partitions = t.SubtopologyID, t.Partitions
		out = append(out, k)
	}
	return out
}
