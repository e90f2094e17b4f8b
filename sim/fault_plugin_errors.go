package sim

import "github.com/coordsim/coordsim/plugin/faultstore"

// faultPluginErrors fails topology-store calls: a transient or permanent
// error, or a call that takes effect but reports a transient error (the
// faultstore wrapping the store draws them, per call).
func faultPluginErrors() faultKind {
	return faultKind{
		name: "plugin-errors",
		params: []*Param{
			probParam("faults.plugin_transient", "a plugin call fails with a transient error",
				func(o *Options) any { return &o.Faults.PluginTransient }).swarm(scaleHeavy()),
			probParam("faults.plugin_permanent", "a plugin call fails with a permanent error",
				func(o *Options) any { return &o.Faults.PluginPermanent }).swarm(scaleHeavy()),
			probParam("faults.plugin_applied_transient", "a plugin call takes effect but reports a transient error",
				func(o *Options) any { return &o.Faults.PluginAppliedTransient }).swarm(scaleHeavy()),
		},
		light: func(f *Faults) { f.PluginTransient, f.PluginPermanent, f.PluginAppliedTransient = 0.05, 0.01, 0.01 },
		heavy: func(f *Faults) { f.PluginTransient, f.PluginPermanent, f.PluginAppliedTransient = 0.2, 0.05, 0.05 },
		rules: func(f Faults) []optionRule {
			return []optionRule{{f.PluginTransient+f.PluginPermanent+f.PluginAppliedTransient > 1,
				[]string{"faults.plugin_transient", "faults.plugin_permanent", "faults.plugin_applied_transient"}, "the plugin fault probabilities add up to more than 1"}}
		},
		store: func(f Faults) []faultstore.Option {
			rates := faultstore.Rates{Transient: f.PluginTransient, Permanent: f.PluginPermanent, AppliedTransient: f.PluginAppliedTransient}
			return []faultstore.Option{faultstore.WithRates(faultstore.AnyOp, rates)}
		},
	}
}
