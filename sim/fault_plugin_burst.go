package sim

import "github.com/coordsim/coordsim/plugin/faultstore"

// faultPluginBurst starts, with PluginBurstProb per call, a burst of
// PluginBurstLength failing (transient) plugin calls.
func faultPluginBurst() faultKind {
	return faultKind{
		name: "plugin-burst",
		params: []*Param{
			probParam("faults.plugin_burst_prob", "a call starts a burst of failing calls",
				func(o *Options) any { return &o.Faults.PluginBurstProb }).swarm(scaleHeavy()),
			intParam("faults.plugin_burst_length", 0, 10_000, "failing calls in a burst", func(o *Options) any { return &o.Faults.PluginBurstLength }),
		},
		light: func(f *Faults) { f.PluginBurstProb, f.PluginBurstLength = 0.002, 5 },
		heavy: func(f *Faults) { f.PluginBurstProb, f.PluginBurstLength = 0.01, 20 },
		store: func(f Faults) []faultstore.Option {
			if f.PluginBurstProb <= 0 || f.PluginBurstLength <= 0 {
				return nil
			}
			return []faultstore.Option{faultstore.WithBurst(faultstore.Burst{Probability: f.PluginBurstProb, Length: f.PluginBurstLength, Fault: faultstore.FaultTransient})}
		},
	}
}
