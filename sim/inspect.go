package sim

import (
	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/shard"
)

// GroupDetail is one group as the simulation left it (at the end, or at
// Options.StopAt): what `coordsim replay --group G` prints.
type GroupDetail struct {
	GroupID   string `json:"group"`
	Partition int32  `json:"partition"`
	// Broker owns the partition (-1: the partition is moving).
	Broker int `json:"broker"`
	// Exists is false when the group is not in the committed state.
	Exists        bool   `json:"exists"`
	Type          string `json:"type,omitempty"`
	State         string `json:"state,omitempty"`
	Epoch         int32  `json:"epoch"`
	Members       int    `json:"members"`
	TopologyEpoch int32  `json:"topology_epoch"`
	// StoredEpoch and FailedEpoch are the KIP-1331 description epochs.
	StoredEpoch int32 `json:"stored_epoch"`
	FailedEpoch int32 `json:"failed_epoch"`
	Offsets     int   `json:"offsets"`
	// PluginRows are the store's rows for the group (nil when the store
	// cannot list them); InFlight counts its plugin calls not yet landed.
	PluginRows []plugin.Entry `json:"plugin_rows"`
	Listable   bool           `json:"listable"`
	InFlight   int            `json:"plugin_calls_in_flight"`
}

// inspectGroup describes a group from its owner's committed state.
func (w *world) inspectGroup(id string) *GroupDetail {
	p := coordinator.PartitionFor(id, w.opts.Partitions)
	d := &GroupDetail{GroupID: id, Partition: p, Broker: w.owner[p], TopologyEpoch: -1, StoredEpoch: shard.EpochNone, FailedEpoch: shard.EpochNone,
		InFlight: w.groupInFlight[id]}
	if b := w.owner[p]; b >= 0 {
		_ = w.brokers[b].c.ReadShard(p, func(sh *shard.Shard) {
			g, ok := sh.DescribeGroup(id)
			if !ok {
				return
			}
			d.Exists, d.Type, d.State, d.Epoch, d.Members = true, g.Type.String(), g.State.String(), g.Epoch, len(g.Members)
			d.StoredEpoch, d.FailedEpoch = g.StoredDescriptionTopologyEpoch, g.FailedDescriptionTopologyEpoch
			if g.Topology != nil {
				d.TopologyEpoch = g.Topology.Epoch
			}
			if offs, err := sh.FetchOffsets(id, nil, false); err == nil {
				d.Offsets = len(offs)
			}
		})
	}
	if w.lister != nil {
		d.Listable = true
		for _, e := range w.lister.List() {
			if e.GroupID == id {
				d.PluginRows = append(d.PluginRows, e)
			}
		}
	}
	return d
}
