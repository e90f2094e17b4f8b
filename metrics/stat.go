package metrics

import "math"

// Kind tells an exporter how to expose a metric.
type Kind uint8

const (
	// KindGauge is a value that goes up and down: rates, windowed sums, gauges.
	KindGauge Kind = iota + 1
	// KindCounter is a cumulative total that only grows: CumulativeSum,
	// CumulativeCount and a Meter's "-count" (or "-total") twin.
	KindCounter
)

// String returns "gauge" or "counter" (the Prometheus TYPE), or "invalid".
func (k Kind) String() string {
	switch k {
	case KindGauge:
		return "gauge"
	case KindCounter:
		return "counter"
	default:
		return "invalid"
	}
}

func (k Kind) valid() bool { return k == KindGauge || k == KindCounter }

// Stat is a measurable statistic (Kafka's MeasurableStat). Add one to a Sensor
// with Sensor.Add; it becomes one metric. The implementations are this
// package's: CumulativeSum, CumulativeCount, WindowedSum, WindowedCount, Rate,
// Max, Min and Avg. A stat instance belongs to one sensor.
type Stat interface {
	// Kind is how the stat is exported.
	Kind() Kind
	record(cfg *Config, value float64, nowMs int64)
	measure(cfg *Config, nowMs int64) float64
	inUse() bool
	bind(cfg *Config)
}

// SampledStat is a Stat computed over a ring of time-windowed samples (Kafka's
// SampledStat): WindowedSum, WindowedCount, Max, Min and Avg. A Rate divides
// one by the window size.
type SampledStat interface {
	Stat
	sampled() *sampledStat
}

// CumulativeSum is the all-time sum of the recorded values (a counter).
type CumulativeSum struct {
	total float64
	bound bool
}

// NewCumulativeSum returns a CumulativeSum starting at 0.
func NewCumulativeSum() *CumulativeSum { return &CumulativeSum{} }

// Kind returns KindCounter. Recording negative values breaks counter semantics.
func (s *CumulativeSum) Kind() Kind                               { return KindCounter }
func (s *CumulativeSum) record(_ *Config, value float64, _ int64) { s.total += value }
func (s *CumulativeSum) measure(*Config, int64) float64           { return s.total }
func (s *CumulativeSum) inUse() bool                              { return s.bound }
func (s *CumulativeSum) bind(*Config)                             { s.bound = true }

// CumulativeCount counts records, whatever their value (a counter).
type CumulativeCount struct {
	total float64
	bound bool
}

// NewCumulativeCount returns a CumulativeCount starting at 0.
func NewCumulativeCount() *CumulativeCount { return &CumulativeCount{} }

// Kind returns KindCounter.
func (s *CumulativeCount) Kind() Kind                     { return KindCounter }
func (s *CumulativeCount) record(*Config, float64, int64) { s.total++ }
func (s *CumulativeCount) measure(*Config, int64) float64 { return s.total }
func (s *CumulativeCount) inUse() bool                    { return s.bound }
func (s *CumulativeCount) bind(*Config)                   { s.bound = true }

// sampledKind selects the update and combine rules of a sampledStat.
type sampledKind uint8

const (
	sampledSum sampledKind = iota
	sampledCount
	sampledMax
	sampledMin
	sampledAvg
)

// sample is Kafka's SampledStat.Sample.
type sample struct {
	value       float64
	eventCount  int64
	startTimeMs int64
	lastEventMs int64
}

func (s *sample) reset(initial float64, nowMs int64) {
	*s = sample{value: initial, startTimeMs: nowMs, lastEventMs: nowMs}
}

func (s *sample) isComplete(cfg *Config, nowMs int64) bool {
	return nowMs-s.startTimeMs >= cfg.TimeWindowMs || s.eventCount >= cfg.EventWindow
}

// sampledStat is Kafka's SampledStat: samples grow lazily up to Samples+1 (the
// extra slot keeps a sample that overlaps the monitored window), current indexes
// the sample being written.
type sampledStat struct {
	kind    sampledKind
	initial float64
	current int
	samples []sample
	bound   bool
}

func (s *sampledStat) sampled() *sampledStat { return s }
func (s *sampledStat) inUse() bool           { return s.bound }

// init sets the rules of the stat and preallocates the ring so that recording
// never allocates. Each sampled type calls it from its bind, which makes the
// zero values usable.
func (s *sampledStat) init(kind sampledKind, initial float64, cfg *Config) {
	s.kind, s.initial, s.bound = kind, initial, true
	s.samples = make([]sample, 0, cfg.Samples+1)
}

func (s *sampledStat) record(cfg *Config, value float64, nowMs int64) {
	smp := s.currentSample(nowMs)
	if smp.isComplete(cfg, nowMs) {
		smp = s.advance(cfg, nowMs)
	}
	switch s.kind {
	case sampledSum, sampledAvg:
		smp.value += value
	case sampledCount:
		smp.value++
	case sampledMax:
		smp.value = math.Max(smp.value, value)
	case sampledMin:
		smp.value = math.Min(smp.value, value)
	}
	smp.eventCount++
	smp.lastEventMs = nowMs
}

func (s *sampledStat) currentSample(nowMs int64) *sample {
	if len(s.samples) == 0 {
		s.samples = append(s.samples, sample{value: s.initial, startTimeMs: nowMs, lastEventMs: nowMs})
	}
	return &s.samples[s.current]
}

func (s *sampledStat) advance(cfg *Config, nowMs int64) *sample {
	s.current = (s.current + 1) % (cfg.Samples + 1)
	if s.current >= len(s.samples) {
		s.samples = append(s.samples, sample{value: s.initial, startTimeMs: nowMs, lastEventMs: nowMs})
		return &s.samples[len(s.samples)-1]
	}
	smp := &s.samples[s.current]
	smp.reset(s.initial, nowMs)
	return smp
}

// oldest returns the sample with the smallest start time, opening one at nowMs
// when there is none (Kafka does the same, so measuring an empty stat mutates it).
func (s *sampledStat) oldest(nowMs int64) *sample {
	if len(s.samples) == 0 {
		s.samples = append(s.samples, sample{value: s.initial, startTimeMs: nowMs, lastEventMs: nowMs})
	}
	old := &s.samples[0]
	for i := 1; i < len(s.samples); i++ {
		if s.samples[i].startTimeMs < old.startTimeMs {
			old = &s.samples[i]
		}
	}
	return old
}

// purge resets every sample whose last event is at least Samples windows old.
// Kafka measures the age from the last event, not the start, so a sample that
// overlaps the monitored window is kept.
func (s *sampledStat) purge(cfg *Config, nowMs int64) {
	expireAgeMs := int64(cfg.Samples) * cfg.TimeWindowMs
	for i := range s.samples {
		if nowMs-s.samples[i].lastEventMs >= expireAgeMs {
			s.samples[i].reset(s.initial, nowMs)
		}
	}
}

func (s *sampledStat) measure(cfg *Config, nowMs int64) float64 {
	s.purge(cfg, nowMs)
	return s.combine()
}

// combine folds the retained samples as Kafka's SampledStat subclasses do:
// Max and Min the extreme value (from -Inf and Double.MAX_VALUE), Avg the
// total over the event count, WindowedSum and WindowedCount the total. Max,
// Min and Avg are NaN when no sample saw an event. One pass serves every
// kind; the total adds the samples in the same order for each.
func (s *sampledStat) combine() float64 {
	maxV, minV, total, count := math.Inf(-1), math.MaxFloat64, 0.0, int64(0)
	for _, smp := range s.samples {
		maxV, minV = math.Max(maxV, smp.value), math.Min(minV, smp.value)
		total += smp.value
		count += smp.eventCount
	}
	switch {
	case s.kind == sampledSum || s.kind == sampledCount:
		return total
	case count == 0:
		return math.NaN()
	case s.kind == sampledMax:
		return maxV
	case s.kind == sampledMin:
		return minV
	}
	return total / float64(count)
}

// WindowedSum is the sum of the values recorded in the retained samples.
type WindowedSum struct{ sampledStat }

// NewWindowedSum returns an empty WindowedSum. The zero value is ready too.
func NewWindowedSum() *WindowedSum { return &WindowedSum{} }

func (s *WindowedSum) bind(cfg *Config) { s.init(sampledSum, 0, cfg) }

// Kind returns KindGauge.
func (s *WindowedSum) Kind() Kind { return KindGauge }

// WindowedCount is the number of records in the retained samples (a
// WindowedSum that adds 1 per record).
type WindowedCount struct{ sampledStat }

// NewWindowedCount returns an empty WindowedCount. The zero value is ready too.
func NewWindowedCount() *WindowedCount { return &WindowedCount{} }

func (s *WindowedCount) bind(cfg *Config) { s.init(sampledCount, 0, cfg) }

// Kind returns KindGauge.
func (s *WindowedCount) Kind() Kind { return KindGauge }

// Max is the largest value recorded in the retained samples, NaN when there
// is none.
type Max struct{ sampledStat }

// NewMax returns an empty Max. The zero value is ready too.
func NewMax() *Max { return &Max{} }

func (s *Max) bind(cfg *Config) { s.init(sampledMax, math.Inf(-1), cfg) }

// Kind returns KindGauge.
func (s *Max) Kind() Kind { return KindGauge }

// Min is the smallest value recorded in the retained samples, NaN when there
// is none.
type Min struct{ sampledStat }

// NewMin returns an empty Min. The zero value is ready too.
func NewMin() *Min { return &Min{} }

// bind starts samples at Java's Double.MAX_VALUE, as Kafka's Min does.
func (s *Min) bind(cfg *Config) { s.init(sampledMin, math.MaxFloat64, cfg) }

// Kind returns KindGauge.
func (s *Min) Kind() Kind { return KindGauge }

// Avg is the mean of the values recorded in the retained samples, NaN when
// there is none.
type Avg struct{ sampledStat }

// NewAvg returns an empty Avg. The zero value is ready too.
func NewAvg() *Avg { return &Avg{} }

func (s *Avg) bind(cfg *Config) { s.init(sampledAvg, 0, cfg) }

// Kind returns KindGauge.
func (s *Avg) Kind() Kind { return KindGauge }

// Rate is a sampled stat divided by the window size in seconds (Kafka's Rate
// with TimeUnit.SECONDS). By default it is a rate of values (a WindowedSum);
// over a WindowedCount it is a rate of records. The zero value is a rate of
// values.
type Rate struct {
	stat  SampledStat
	bound bool
}

// NewRate returns the per-second rate of the recorded values.
func NewRate() *Rate { return &Rate{stat: NewWindowedSum()} }

// NewRateOf returns the per-second rate of the given sampled stat, e.g.
// NewRateOf(NewWindowedCount()) for records per second. The stat must not be
// added to a sensor on its own. A nil stat gives a rate of values.
func NewRateOf(stat SampledStat) *Rate {
	if statIsNil(stat) {
		stat = nil
	}
	return &Rate{stat: stat}
}

// Kind returns KindGauge.
func (r *Rate) Kind() Kind { return KindGauge }

func (r *Rate) inUse() bool { return r.bound || (r.stat != nil && r.stat.inUse()) }

// bind binds the rate and its stat; a zero Rate becomes a rate of values.
func (r *Rate) bind(cfg *Config) {
	if r.stat == nil {
		r.stat = NewWindowedSum()
	}
	r.bound = true
	r.stat.bind(cfg)
}

func (r *Rate) record(cfg *Config, value float64, nowMs int64) { r.stat.record(cfg, value, nowMs) }

func (r *Rate) measure(cfg *Config, nowMs int64) float64 {
	v := r.stat.measure(cfg, nowMs)
	return v / (float64(r.windowSizeMs(cfg, nowMs)) / 1000.0)
}

// windowSizeMs is Kafka's Rate.windowSize: the time since the oldest retained
// sample started, padded to Samples-1 full windows (so a young stat does not
// report a burst as a huge rate), at least 1 ms.
func (r *Rate) windowSizeMs(cfg *Config, nowMs int64) int64 {
	s := r.stat.sampled()
	s.purge(cfg, nowMs)
	elapsedMs := nowMs - s.oldest(nowMs).startTimeMs
	fullWindows := elapsedMs / cfg.TimeWindowMs
	minFullWindows := int64(cfg.Samples - 1)
	if fullWindows < minFullWindows {
		elapsedMs += (minFullWindows - fullWindows) * cfg.TimeWindowMs
	}
	return max(elapsedMs, 1)
}

// Meter is Kafka's Meter: a Rate and a cumulative total recorded together and
// exposed as two metrics, "<base>-rate" (gauge) and "<base>-count" (counter; the
// suffix is an option). Over a WindowedSum (the default) both see the value;
// over a WindowedCount the rate counts records and the total adds 1 per record.
type Meter struct {
	rate            *Rate
	total           float64
	countsRecords   bool
	countSuffix     string
	rateDescription string
	countDesc       string
	descriptionsSet bool
	bound           bool
}

// MeterOption configures a Meter.
type MeterOption func(*Meter)

// WithWindowedCount makes the meter count records: its rate is records per
// second (a Rate over a WindowedCount) and its total adds 1 per record,
// whatever the value (Kafka: new Meter(new WindowedCount(), ...)).
func WithWindowedCount() MeterOption {
	return func(m *Meter) {
		m.countsRecords = true
		m.rate = NewRateOf(NewWindowedCount())
	}
}

// WithCountSuffix sets the suffix of the cumulative twin: "-count" (the group
// coordinator's naming, the default) or "-total" (Kafka's documented
// convention). The suffix must start with '-' or '_' and keep the name valid.
func WithCountSuffix(suffix string) MeterOption {
	return func(m *Meter) { m.countSuffix = suffix }
}

// WithDescriptions sets the descriptions of the rate and the count metrics;
// by default both take the base name's description.
func WithDescriptions(rate, count string) MeterOption {
	return func(m *Meter) {
		m.rateDescription, m.countDesc, m.descriptionsSet = rate, count, true
	}
}

// NewMeter returns a Meter: by default a rate of values with a "-count" total.
func NewMeter(opts ...MeterOption) *Meter {
	m := &Meter{rate: NewRate(), countSuffix: "-count"}
	for _, opt := range opts {
		if opt != nil {
			opt(m)
		}
	}
	return m
}

func (m *Meter) record(cfg *Config, value float64, nowMs int64) {
	m.rate.record(cfg, value, nowMs)
	if m.countsRecords {
		m.total++
	} else {
		m.total += value
	}
}

func (m *Meter) inUse() bool { return m.bound || m.rate.inUse() }

func (m *Meter) bind(cfg *Config) {
	m.bound = true
	m.rate.bind(cfg)
}

// names returns the rate and count metric names for base.
func (m *Meter) names(base MetricName) (rate, count MetricName) {
	rate, count = base, base
	rate.Name += "-rate"
	count.Name += m.countSuffix
	if m.descriptionsSet {
		rate.Description, count.Description = m.rateDescription, m.countDesc
	}
	return rate, count
}

// meterTotal exposes the Meter's cumulative total as a Stat-like measurable.
type meterTotal struct{ m *Meter }

func (t meterTotal) measure(*Config, int64) float64 { return t.m.total }
