package plugin_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/plugin"
)

// wordCount is a valid two-subtopology description with a store and a global store,
// the base that the validation cases break one way each.
func wordCount() *plugin.TopologyDescription {
	return plugin.NewBuilder().
		Subtopology("0").
		AddSource("source", "lines").
		AddProcessor("split", "source").
		AddSink("repartition-sink", "words-repartition", "split").
		Subtopology("1").
		AddSource("repartition-source", "words-repartition").
		AddProcessor("count", "repartition-source").
		AddStateStore("counts", "count").
		AddSink("sink", "word-counts", "count").
		AddGlobalStore("2", "dictionary", "dictionary-source", "dictionary", "dictionary-processor").
		MustBuild()
}

// TestValidate proves that Validate accepts a realistic description and names the
// problem of each broken one: where it is and what is wrong.
func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(d *plugin.TopologyDescription)
		want   string // "" means valid
	}{
		{"valid", func(*plugin.TopologyDescription) {}, ""},
		{"pattern source", func(d *plugin.TopologyDescription) {
			n := &d.Subtopologies[0].Nodes[0]
			n.Topics, n.TopicPattern = nil, "lines-.*"
		}, ""},
		{"empty", func(d *plugin.TopologyDescription) { *d = plugin.TopologyDescription{} }, "no subtopologies and no global stores"},
		{"empty subtopology id", func(d *plugin.TopologyDescription) { d.Subtopologies[1].ID = "" }, `subtopology "": empty id`},
		{"duplicate subtopology id", func(d *plugin.TopologyDescription) { d.Subtopologies[1].ID = "0" }, `subtopology "0": duplicate subtopology id`},
		{"global store id reused", func(d *plugin.TopologyDescription) { d.GlobalStores[0].ID = "1" }, `global store "1": duplicate subtopology id`},
		{"no nodes", func(d *plugin.TopologyDescription) { d.Subtopologies[0].Nodes = nil }, `subtopology "0": no nodes`},
		{"empty node name", func(d *plugin.TopologyDescription) { d.Subtopologies[0].Nodes[2].Name = "" }, `subtopology "0": empty node name`},
		{"duplicate node name", func(d *plugin.TopologyDescription) { d.Subtopologies[0].Nodes[2].Name = "split" }, `subtopology "0": duplicate node name "split"`},
		{"node name in two subtopologies", func(d *plugin.TopologyDescription) {
			d.Subtopologies[1].Nodes[2].Name = "split"
		}, `subtopology "1": node name "split" is also used in subtopology "0"`},
		{"unknown kind", func(d *plugin.TopologyDescription) { d.Subtopologies[0].Nodes[1].Kind = 9 }, `node "split": unknown node kind 9`},
		{"source without topics", func(d *plugin.TopologyDescription) { d.Subtopologies[0].Nodes[0].Topics = nil }, `node "source": source without topics or a topic pattern`},
		{"source with topics and pattern", func(d *plugin.TopologyDescription) { d.Subtopologies[0].Nodes[0].TopicPattern = "x" }, "source with both topics and a topic pattern"},
		{"source empty topic", func(d *plugin.TopologyDescription) { d.Subtopologies[0].Nodes[0].Topics = []string{""} }, `node "source": empty topic`},
		{"source duplicate topic", func(d *plugin.TopologyDescription) { d.Subtopologies[0].Nodes[0].Topics = []string{"a", "a"} }, `duplicate topic "a"`},
		{"source with stores", func(d *plugin.TopologyDescription) { d.Subtopologies[0].Nodes[0].Stores = []string{"counts"} }, "source with stores"},
		{"sink without topic", func(d *plugin.TopologyDescription) { d.Subtopologies[1].Nodes[2].Topic = "" }, `node "sink": sink without topic`},
		{"sink with successors", func(d *plugin.TopologyDescription) {
			d.Subtopologies[1].Nodes[2].Successors = []string{"count"}
		}, "sink with successors"},
		{"processor with sink topic", func(d *plugin.TopologyDescription) { d.Subtopologies[0].Nodes[1].Topic = "x" }, `processor with a sink topic "x"`},
		{"edge to unknown node", func(d *plugin.TopologyDescription) {
			d.Subtopologies[0].Nodes[1].Successors = append(d.Subtopologies[0].Nodes[1].Successors, "nowhere")
		}, `node "split": successor "nowhere" is not a node of this subtopology`},
		{"edge across subtopologies", func(d *plugin.TopologyDescription) {
			d.Subtopologies[0].Nodes[1].Successors = []string{"count"}
		}, `successor "count" is not a node of this subtopology`},
		{"self edge", func(d *plugin.TopologyDescription) { d.Subtopologies[0].Nodes[1].Successors = []string{"split"} }, "is its own successor"},
		{"edge into a source", func(d *plugin.TopologyDescription) {
			d.Subtopologies[0].Nodes[1].Successors = []string{"source", "repartition-sink"}
		}, `successor "source" is a source`},
		{"duplicate edge", func(d *plugin.TopologyDescription) {
			d.Subtopologies[0].Nodes[0].Successors = []string{"split", "split"}
		}, `duplicate successor "split"`},
		{"processor without predecessor", func(d *plugin.TopologyDescription) { d.Subtopologies[0].Nodes[0].Successors = nil }, `node "split": processor without a predecessor`},
		{"no source", func(d *plugin.TopologyDescription) {
			d.Subtopologies[0].Nodes[0] = plugin.Node{Name: "source", Kind: plugin.NodeProcessor, Successors: []string{"split"}}
		}, `subtopology "0": no source node`},
		{"cycle", func(d *plugin.TopologyDescription) {
			s := &d.Subtopologies[1]
			s.Nodes = append(s.Nodes, plugin.Node{Name: "loop", Kind: plugin.NodeProcessor, Successors: []string{"count"}})
			s.Nodes[1].Successors = append(s.Nodes[1].Successors, "loop")
		}, "is on a cycle of successor edges"},
		{"store used by no processor", func(d *plugin.TopologyDescription) { d.Subtopologies[1].Nodes[1].Stores = nil }, `subtopology "1": store "counts" is used by no processor`},
		{"store not declared", func(d *plugin.TopologyDescription) { d.Subtopologies[1].Stores = nil }, `node "count": uses store "counts" that this subtopology does not declare`},
		{"store of another subtopology", func(d *plugin.TopologyDescription) { d.Subtopologies[0].Nodes[1].Stores = []string{"counts"} }, `node "split": uses store "counts" that this subtopology does not declare`},
		{"store declared twice", func(d *plugin.TopologyDescription) {
			d.Subtopologies[0].Stores = []string{"counts"}
			d.Subtopologies[0].Nodes[1].Stores = []string{"counts"}
		}, `subtopology "1": store "counts" is also declared by subtopology "0"`},
		{"empty store name", func(d *plugin.TopologyDescription) {
			d.Subtopologies[1].Stores = []string{""}
			d.Subtopologies[1].Nodes[1].Stores = []string{""}
		}, `node "count": empty store`},
		{"global source with two topics", func(d *plugin.TopologyDescription) {
			d.GlobalStores[0].Source.Topics = []string{"a", "b"}
		}, `global store "2": node "dictionary-source": global store source must read exactly one topic, not 2`},
		{"global processor with two stores", func(d *plugin.TopologyDescription) {
			d.GlobalStores[0].Processor.Stores = []string{"a", "b"}
		}, "global store processor must use exactly one store, not 2"},
		{"global source not linked", func(d *plugin.TopologyDescription) { d.GlobalStores[0].Source.Successors = nil }, `must have exactly the successor "dictionary-processor"`},
		{"global store name clash", func(d *plugin.TopologyDescription) { d.GlobalStores[0].Processor.Stores = []string{"counts"} }, `store "counts" is also declared by subtopology "1"`},
		{"global processor is a sink", func(d *plugin.TopologyDescription) { d.GlobalStores[0].Processor.Kind = plugin.NodeSink }, "global store processor is a sink"},
		{"name too long", func(d *plugin.TopologyDescription) {
			d.Subtopologies[1].Nodes[2].Topic = strings.Repeat("x", plugin.MaxNameBytes+1)
		}, "topic of 1025 bytes exceeds 1024"},
		{"invalid UTF-8", func(d *plugin.TopologyDescription) { d.Subtopologies[0].Nodes[0].Topics = []string{"\xff"} }, "is not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := wordCount()
			tt.mutate(d)
			err := d.Validate()
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.ErrorIs(t, err, plugin.ErrInvalidDescription)
			assert.Equal(t, plugin.ClassPermanent, plugin.Classify(err))
		})
	}
	var nilDesc *plugin.TopologyDescription
	assert.ErrorIs(t, nilDesc.Validate(), plugin.ErrInvalidDescription)
}

// TestValidateLimits proves that descriptions past the limits are refused, so every
// store can rely on them.
func TestValidateLimits(t *testing.T) {
	d := plugin.SampleTopology(1, 1)
	d.Subtopologies = make([]plugin.Subtopology, plugin.MaxSubtopologies+1)
	assert.ErrorContains(t, d.Validate(), "exceed 1024")

	d = plugin.SampleTopology(1, 1)
	d.Subtopologies[0].Nodes = make([]plugin.Node, plugin.MaxNodes+1)
	assert.ErrorContains(t, d.Validate(), "nodes exceed")
}

// TestCloneEqual proves that Clone shares no memory with the original, that Equal
// sees every field, and that nil and empty lists are equal.
func TestCloneEqual(t *testing.T) {
	d := wordCount()
	c := d.Clone()
	require.True(t, d.Equal(c))
	c.Subtopologies[1].Nodes[1].Stores[0] = "changed"
	c.GlobalStores[0].Source.Topics[0] = "changed"
	assert.Equal(t, "counts", d.Subtopologies[1].Nodes[1].Stores[0])
	assert.Equal(t, "dictionary", d.GlobalStores[0].Source.Topics[0])
	assert.False(t, d.Equal(c))

	mutations := []func(d *plugin.TopologyDescription){
		func(d *plugin.TopologyDescription) { d.Subtopologies[0].ID = "x" },
		func(d *plugin.TopologyDescription) { d.Subtopologies[0].Nodes[0].Name = "x" },
		func(d *plugin.TopologyDescription) { d.Subtopologies[0].Nodes[0].Kind = plugin.NodeSink },
		func(d *plugin.TopologyDescription) { d.Subtopologies[0].Nodes[0].Topics[0] = "x" },
		func(d *plugin.TopologyDescription) { d.Subtopologies[0].Nodes[0].TopicPattern = "x" },
		func(d *plugin.TopologyDescription) { d.Subtopologies[0].Nodes[2].Topic = "x" },
		func(d *plugin.TopologyDescription) { d.Subtopologies[0].Nodes[0].Successors = nil },
		func(d *plugin.TopologyDescription) {
			d.Subtopologies[1].Stores = append(d.Subtopologies[1].Stores, "x")
		},
		func(d *plugin.TopologyDescription) { d.GlobalStores[0].ID = "x" },
		func(d *plugin.TopologyDescription) { d.GlobalStores[0].Processor.Stores = nil },
		func(d *plugin.TopologyDescription) { d.GlobalStores = nil },
	}
	for i, m := range mutations {
		c := d.Clone()
		m(c)
		assert.False(t, d.Equal(c), "mutation %d", i)
	}

	var nilDesc *plugin.TopologyDescription
	assert.True(t, nilDesc.Equal(nil))
	assert.False(t, nilDesc.Equal(d))
	assert.False(t, d.Equal(nil))
	assert.Nil(t, nilDesc.Clone())

	a := &plugin.TopologyDescription{Subtopologies: []plugin.Subtopology{{ID: "0", Nodes: []plugin.Node{{Name: "s", Kind: plugin.NodeSource, Topics: []string{"t"}, Stores: []string{}}}}}}
	b := &plugin.TopologyDescription{Subtopologies: []plugin.Subtopology{{ID: "0", Nodes: []plugin.Node{{Name: "s", Kind: plugin.NodeSource, Topics: []string{"t"}}}}}, GlobalStores: []plugin.GlobalStore{}}
	assert.True(t, a.Equal(b), "nil and empty lists are equal")
}

// TestJSONRoundTrip proves that a description survives encoding/json unchanged and
// that node kinds are stored by name.
func TestJSONRoundTrip(t *testing.T) {
	d := wordCount()
	b, err := json.Marshal(d)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"kind":"processor"`)
	var back plugin.TopologyDescription
	require.NoError(t, json.Unmarshal(b, &back))
	assert.True(t, d.Equal(&back))

	assert.Error(t, json.Unmarshal([]byte(`{"subtopologies":[{"id":"0","nodes":[{"name":"s","kind":"teapot"}]}]}`), &back))
	_, err = json.Marshal(plugin.Node{Kind: 7})
	assert.Error(t, err)
}

// TestString proves the Kafka-style rendering, global stores included, and that it
// is stable.
func TestString(t *testing.T) {
	want := `Topologies:
   Sub-topology: 0
    Source: source (topics: [lines])
      --> split
    Processor: split (stores: [])
      --> repartition-sink
      <-- source
    Sink: repartition-sink (topic: words-repartition)
      <-- split

  Sub-topology: 1
    Source: repartition-source (topics: [words-repartition])
      --> count
    Processor: count (stores: [counts])
      --> sink
      <-- repartition-source
    Sink: sink (topic: word-counts)
      <-- count

  Sub-topology: 2 for global store (will not generate tasks)
    Source: dictionary-source (topics: [dictionary])
      --> dictionary-processor
    Processor: dictionary-processor (stores: [dictionary])
      --> none
      <-- dictionary-source

`
	assert.Equal(t, want, wordCount().String())
	assert.Equal(t, wordCount().String(), wordCount().Clone().String())

	d := plugin.NewBuilder().Subtopology("0").AddSourcePattern("s", "orders-.*").AddSink("k", "out", "s").MustBuild()
	assert.Contains(t, d.String(), "Source: s (topicPattern: orders-.*)")
	var nilDesc *plugin.TopologyDescription
	assert.Equal(t, "<nil>", nilDesc.String())
}

// TestBuilderMistakes proves that the builder reports a node added before any
// subtopology, an unknown parent and an unknown store processor, and validates what
// it builds.
func TestBuilderMistakes(t *testing.T) {
	_, err := plugin.NewBuilder().AddSource("s", "t").Build()
	assert.ErrorContains(t, err, `node "s" added before any Subtopology`)

	_, err = plugin.NewBuilder().Subtopology("0").AddSource("s", "t").AddProcessor("p", "nope").Build()
	assert.ErrorContains(t, err, `node "p": parent "nope" is not a node of this subtopology`)

	_, err = plugin.NewBuilder().Subtopology("0").AddSource("s", "t").AddStateStore("st", "p").Build()
	assert.ErrorContains(t, err, `store "st": processor "p" is not a node of this subtopology`)

	_, err = plugin.NewBuilder().Subtopology("0").AddSource("s").Build()
	assert.ErrorContains(t, err, "source without topics")

	assert.Panics(t, func() { plugin.NewBuilder().MustBuild() })

	d := wordCount()
	assert.Equal(t, []string{"source"}, d.Subtopologies[0].Predecessors("split"))
	assert.Equal(t, []string{"count"}, d.Subtopologies[1].StoreUsers("counts"))
	assert.Equal(t, 8, d.NodeCount())
}

// TestSampleTopology proves that SampleTopology is valid for many seeds and sizes,
// deterministic, and different across seeds.
func TestSampleTopology(t *testing.T) {
	seen := map[string]uint64{}
	for seed := range uint64(200) {
		for _, size := range []int{-1, 1, 2, 5, 40} {
			d := plugin.SampleTopology(seed, size)
			require.NoError(t, d.Validate(), "seed %d size %d", seed, size)
			require.True(t, d.Equal(plugin.SampleTopology(seed, size)), "seed %d size %d", seed, size)
			assert.GreaterOrEqual(t, len(d.Subtopologies), max(size, 1))
		}
		s := plugin.SampleTopology(seed, 3).String()
		if other, dup := seen[s]; dup {
			t.Errorf("seeds %d and %d give the same description", other, seed)
		}
		seen[s] = seed
	}
	big := plugin.SampleTopology(1, plugin.MaxSubtopologies+10)
	assert.NoError(t, big.Validate())
}
