package metrics

import (
	"cmp"
	"math"
	"strconv"
)

// Kafka's MetricConfig defaults (metrics.num.samples, metrics.sample.window.ms).
const (
	// DefaultSamples is the default number of samples a sampled stat keeps.
	DefaultSamples = 2
	// DefaultTimeWindowMs is the default length of one sample, 30 s.
	DefaultTimeWindowMs int64 = 30_000
	// DefaultEventWindow is the default event count that completes a sample:
	// never (Long.MAX_VALUE).
	DefaultEventWindow int64 = math.MaxInt64
	// MaxSamples bounds Samples: each sampled stat preallocates Samples+1 slots.
	MaxSamples = 1024
)

// Config is Kafka's MetricConfig for the sampled stats of a registry. A field left
// at zero takes Kafka's default; negative values are invalid.
type Config struct {
	// Samples is how many samples a sampled stat combines (default 2, at most
	// MaxSamples). The ring holds one more, as in Kafka.
	Samples int
	// TimeWindowMs is how long one sample lasts (default 30000).
	TimeWindowMs int64
	// EventWindow is how many events complete a sample (default: unbounded).
	EventWindow int64
}

// DefaultConfig returns Kafka's defaults: 2 samples of 30 s, no event window.
func DefaultConfig() Config {
	return Config{Samples: DefaultSamples, TimeWindowMs: DefaultTimeWindowMs, EventWindow: DefaultEventWindow}
}

// Validate reports the first invalid field as an *Error of class
// ErrInvalidConfig whose Subject is the field name. Zero fields are valid (they
// take defaults).
func (c Config) Validate() error {
	if c.Samples < 0 || c.Samples > MaxSamples {
		return newError(ErrInvalidConfig, "Samples", strconv.Itoa(c.Samples)+" is not in [1, "+strconv.Itoa(MaxSamples)+"] (0 means the default)")
	}
	if c.TimeWindowMs < 0 {
		return newError(ErrInvalidConfig, "TimeWindowMs", strconv.FormatInt(c.TimeWindowMs, 10)+" is negative")
	}
	if c.EventWindow < 0 {
		return newError(ErrInvalidConfig, "EventWindow", strconv.FormatInt(c.EventWindow, 10)+" is negative")
	}
	d := c.withDefaults()
	// The purge age is Samples*TimeWindowMs; it must not overflow.
	if d.TimeWindowMs > math.MaxInt64/int64(d.Samples) {
		return newError(ErrInvalidConfig, "TimeWindowMs", strconv.FormatInt(d.TimeWindowMs, 10)+" times Samples overflows int64")
	}
	return nil
}

// withDefaults fills zero fields with Kafka's defaults.
func (c Config) withDefaults() Config {
	c.Samples = cmp.Or(c.Samples, DefaultSamples)
	c.TimeWindowMs = cmp.Or(c.TimeWindowMs, DefaultTimeWindowMs)
	c.EventWindow = cmp.Or(c.EventWindow, DefaultEventWindow)
	return c
}
