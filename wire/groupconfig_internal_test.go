package wire

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJavaDuration proves DescribeConfigs prints a by_duration default as
// java.time.Duration.toString does, and that it parses back to the same
// duration.
func TestJavaDuration(t *testing.T) {
	for ms, want := range map[int64]string{
		1: "PT0.001S", 250: "PT0.25S", 1000: "PT1S", 60_000: "PT1M", 3_600_000: "PT1H", 90_061_500: "PT25H1M1.5S", 86_400_000: "PT24H", 0: "PT0S",
	} {
		got := javaDuration(ms)
		assert.Equal(t, want, got, "%d ms", ms)
		d, err := parseISODuration(got)
		require.NoError(t, err, got)
		assert.Equal(t, time.Duration(ms)*time.Millisecond, d, got)
	}
}
