package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/metrics"
	"github.com/coordsim/coordsim/sim"
	"github.com/coordsim/coordsim/sim/scenario"
)

// TestMetricsHelpMatchesKafkaDescriptions proves every HELP line that
// --metrics writes is true for each series of its family: it holds the
// Kafka description (from the coordinator's metric names) of every series
// it heads, next to the tag value that series has when the descriptions
// differ (issue 26: the state-labelled family said "classic groups in
// completing rebalance state" for every state).
func TestMetricsHelpMatchesKafkaDescriptions(t *testing.T) {
	sc, err := scenario.Builtin("ci")
	require.NoError(t, err)
	o := sc.Options
	o.Duration = sim.DefaultOptions().Duration / 96 // half an hour
	res, err := sim.Run(o, nil)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, writeMetrics(&out, res))
	help := map[string]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "# HELP "); ok {
			fam, text, _ := strings.Cut(rest, " ")
			help[fam] = text
		}
	}
	require.NotEmpty(t, help)
	families := map[string]bool{}
	for _, s := range res.Metrics {
		var one bytes.Buffer
		require.NoError(t, metrics.WritePrometheus(&one, []metrics.Sample{s}, "kafka_coordinator_"))
		head, _, _ := strings.Cut(strings.TrimPrefix(one.String(), "# HELP "), " ")
		families[head] = true
		if s.Name.Description == "" {
			continue
		}
		assert.Contains(t, help[head], s.Name.Description, "%s%v", head, s.Name.Tags)
		if state, ok := s.Name.Tags.Get("state"); ok && help[head] != s.Name.Description {
			assert.Contains(t, help[head], state+": "+s.Name.Description, "%s: the description goes with its state", head)
		}
	}
	assert.Contains(t, help["kafka_coordinator_classic_group_count"], "Stable: The number of classic groups in stable state.")
	assert.Contains(t, help["kafka_coordinator_classic_group_count"], "CompletingRebalance: The number of classic groups in completing rebalance state.")
	assert.Greater(t, len(families), 20, "the run exported the coordinator's families")
}
