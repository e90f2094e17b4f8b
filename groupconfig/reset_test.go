package groupconfig

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/share"
)

// TestFormatDurationMs proves DescribeConfigs prints a by_duration default
// as java.time.Duration.toString does, and that it parses back to the same
// duration.
func TestFormatDurationMs(t *testing.T) {
	for ms, want := range map[int64]string{
		1: "PT0.001S", 250: "PT0.25S", 1000: "PT1S", 60_000: "PT1M", 3_600_000: "PT1H", 90_061_500: "PT25H1M1.5S", 86_400_000: "PT24H", 0: "PT0S",
	} {
		got := FormatDurationMs(ms)
		assert.Equal(t, want, got, "%d ms", ms)
		back, err := ParseISODurationMs(got)
		require.NoError(t, err, got)
		assert.Equal(t, ms, back, got)
	}
}

// TestParseISODurationMs checks java.time.Duration.parse's accepted forms
// (its PATTERN: signs on the whole and on each part, case-insensitive, a
// comma or a point before up to nine fraction digits, even none) and its
// refusals, plus by_duration's refusal of a negative duration.
func TestParseISODurationMs(t *testing.T) {
	for in, want := range map[string]int64{
		"PT1H": 3_600_000, "P1D": 86_400_000, "PT0.5S": 500, "pt15m": 900_000, "PT0,5S": 500, "PT1.S": 1000,
		"P1DT2H3M4.5S": 93_784_500, "PT0S": 0, "+PT2S": 2000, "P-1DT25H": 3_600_000, "-PT-1H": 3_600_000,
		"PT9223372036854775S": 9_223_372_036_854_775_000,
	} {
		got, err := ParseISODurationMs(in)
		if assert.NoError(t, err, in) {
			assert.Equal(t, want, got, in)
		}
	}
	for _, in := range []string{"", "P", "PT", "1H", "PT1", "PT1.5H", "P1.5D", "PT1S2M", "PTH", "P1Y", "P1DT",
		"PT99999999999999999999S", "PT1.0000000001S", "-PT1S", "PT-0.5S", "P106751991167301D", "PT9223372036854776S"} {
		_, err := ParseISODurationMs(in)
		assert.Error(t, err, in)
	}
}

// TestShareAutoOffsetReset proves ShareGroupAutoOffsetResetStrategy's
// names are case-sensitive, by_duration needs a non-negative duration, and
// a by_duration below a millisecond becomes latest in share's form.
func TestShareAutoOffsetReset(t *testing.T) {
	for _, tc := range []struct {
		in       string
		strategy share.AutoOffsetReset
		ms       int64
	}{
		{"latest", share.ResetLatest, 0}, {"earliest", share.ResetEarliest, 0},
		{"by_duration:PT10M", share.ResetByDuration, 600_000}, {"by_duration:PT0S", share.ResetLatest, 0},
		{"by_duration:PT0.0001S", share.ResetLatest, 0},
	} {
		strategy, ms, err := ShareReset(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.strategy, strategy, tc.in)
		assert.Equal(t, tc.ms, ms, tc.in)
		assert.Empty(t, ValidateShareAutoOffsetReset(tc.in), tc.in)
	}
	for _, in := range []string{"", "none", "Earliest", "LATEST", "by_duration", "by_duration:", "by_duration:-PT1S", "BY_DURATION:PT1S"} {
		_, _, err := ShareReset(in)
		assert.Error(t, err, in)
		assert.Contains(t, ValidateShareAutoOffsetReset(in), "The value must be either 'earliest', 'latest'", in)
	}
}

// TestShareResetConfig proves a default set outside a group's config is
// checked as Parse checks the key: the same INVALID_CONFIG and message
// for a bad value, the same share form for a good one.
func TestShareResetConfig(t *testing.T) {
	for _, in := range []string{"none", "by_duration:-PT1S"} {
		_, _, err := ShareResetConfig(in)
		_, perr := Parse(map[string]string{ShareAutoOffsetReset: in}, Bounds{})
		require.Error(t, err, in)
		assert.ErrorIs(t, err, kerr.InvalidConfig, in)
		assert.Equal(t, perr.Error(), err.Error(), in)
	}
	strategy, ms, err := ShareResetConfig("by_duration:PT10M")
	require.NoError(t, err)
	p, err := Parse(map[string]string{ShareAutoOffsetReset: "by_duration:PT10M"}, Bounds{})
	require.NoError(t, err)
	assert.Equal(t, p.AutoOffsetReset, strategy)
	assert.Equal(t, p.AutoOffsetResetDurationMs, ms)
}

// FuzzParseISODurationMs feeds arbitrary text to the duration parser: it
// never panics, never returns a negative duration, and what it accepts
// prints (as Java's Duration.toString) to text that parses back to it.
func FuzzParseISODurationMs(f *testing.F) {
	for _, s := range []string{"PT1H", "P1DT2H3M4.5S", "-PT-1H", "PT1.S", "PT0,5S", "P106751991167301D", "pt15m"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ms, err := ParseISODurationMs(s)
		if err != nil {
			return
		}
		if ms < 0 {
			t.Fatalf("%q parsed to %d ms", s, ms)
		}
		back, err := ParseISODurationMs(FormatDurationMs(ms))
		if err != nil || back != ms {
			t.Fatalf("%q = %d ms printed as %q, which parses to %d, %v", s, ms, FormatDurationMs(ms), back, err)
		}
	})
}
