package sim

import (
	"time"

	"github.com/coordsim/coordsim/plugin"
)

// faultPluginLatency delays every plugin call's outcome by a virtual
// latency drawn from [PluginLatencyMin, PluginLatencyMax]. With
// PluginLatencyTailProb the draw reaches up to PluginLatencyTailMax
// instead: the heavy preset keeps some calls slower than the check
// interval, so cleanup cycles still overlap and single flight drops ticks
// (mark tick-dropped).
func faultPluginLatency() faultKind {
	return faultKind{
		name: "plugin-latency",
		params: []*Param{
			durParam("faults.plugin_latency_min", 0, "lower bound of a plugin call's virtual latency",
				func(o *Options) any { return &o.Faults.PluginLatencyMin }).swarm(uniformDur(0, 0, time.Millisecond)),
			durParam("faults.plugin_latency_max", 0, "upper bound, at least `plugin_latency_min`",
				func(o *Options) any { return &o.Faults.PluginLatencyMax }).swarm(uniformDur(0, 3*time.Minute, time.Millisecond)),
			probParam("faults.plugin_latency_tail_prob", "a plugin call's latency is drawn from the long tail, up to `plugin_latency_tail_max`, instead",
				func(o *Options) any { return &o.Faults.PluginLatencyTailProb }).swarm(scaleHeavy()),
			durParam("faults.plugin_latency_tail_max", 0, "upper bound of the long tail (a tail shorter than `plugin_latency_max` changes nothing)",
				func(o *Options) any { return &o.Faults.PluginLatencyTailMax }),
		},
		light: func(f *Faults) { f.PluginLatencyMin, f.PluginLatencyMax = 5*time.Millisecond, 2*time.Second },
		heavy: func(f *Faults) {
			f.PluginLatencyMin, f.PluginLatencyMax = 10*time.Millisecond, 30*time.Second
			f.PluginLatencyTailProb, f.PluginLatencyTailMax = 0.1, 150*time.Second
		},
		rules: func(f Faults) []optionRule {
			return []optionRule{{f.PluginLatencyMax < f.PluginLatencyMin,
				[]string{"faults.plugin_latency_min", "faults.plugin_latency_max"}, "need plugin_latency_min <= plugin_latency_max"}}
		},
		pluginCall: func(w *world, _ int, _ plugin.Op, _ string, _ time.Duration) time.Duration {
			f := w.opts.Faults
			hi := f.PluginLatencyMax
			if w.eng.chance(f.PluginLatencyTailProb) {
				hi = max(hi, f.PluginLatencyTailMax)
			}
			return w.eng.uniform(f.PluginLatencyMin, hi)
		},
	}
}
