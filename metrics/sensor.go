package metrics

// Sensor is a named recorder holding stats (Kafka's Sensor). RecordValue updates
// every stat of the sensor, then every parent sensor. Sensors come from
// Registry.Sensor; a Sensor is not safe for concurrent use.
type Sensor struct {
	name     string
	reg      *Registry
	parents  []*Sensor
	children []*Sensor
	entries  []*sensorEntry
	metrics  []*metric
	removed  bool
}

// sensorEntry is one thing the sensor records into (a stat or a meter) and how
// many of its metrics are still registered; it is dropped when none is.
type sensorEntry struct {
	rec  recorder
	live int
}

// recorder is anything a sensor records into.
type recorder interface {
	record(cfg *Config, value float64, nowMs int64)
}

// Name returns the sensor's name.
func (s *Sensor) Name() string { return s.name }

// Record records the value 1.0 at nowMs (Kafka's record()).
func (s *Sensor) Record(nowMs int64) { s.RecordValue(1.0, nowMs) }

// RecordValue records value at nowMs into every stat of the sensor, then into
// its parents (Kafka's record(value, timeMs)). A parent reached twice through a
// diamond records twice, as in Kafka. A removed sensor records nothing. It
// never allocates.
func (s *Sensor) RecordValue(value float64, nowMs int64) {
	if s.removed {
		return
	}
	cfg := &s.reg.cfg
	for _, e := range s.entries {
		e.rec.record(cfg, value, nowMs)
	}
	for _, p := range s.parents {
		p.RecordValue(value, nowMs)
	}
}

// Add adds stat to the sensor as the metric name (Kafka's Sensor.add). The
// name must be valid and unused in the registry, the stat non-nil and not yet
// added anywhere; otherwise Add returns an *Error and changes nothing.
func (s *Sensor) Add(name MetricName, stat Stat) error {
	if s.removed {
		return newError(ErrSensorRemoved, s.name, "cannot add "+name.String())
	}
	if statIsNil(stat) {
		return newError(ErrNilStat, name.String(), "stat is nil")
	}
	n, err := s.reg.checkNewName(name)
	if err != nil {
		return err
	}
	if stat.inUse() {
		return newError(ErrStatInUse, n.String(), "the stat is already added to a sensor")
	}
	s.attach(stat, metric{name: n, kind: stat.Kind(), stat: stat})
	return nil
}

// AddMeter adds m to the sensor as two metrics: base with "-rate" appended (a
// gauge) and base with the meter's count suffix appended ("-count" by default;
// a counter). Both names must be valid and unused, the meter non-nil and not
// yet added; otherwise AddMeter returns an *Error and changes nothing.
func (s *Sensor) AddMeter(base MetricName, m *Meter) error {
	if s.removed {
		return newError(ErrSensorRemoved, s.name, "cannot add meter "+base.String())
	}
	if m == nil || m.rate == nil {
		return newError(ErrNilStat, base.String(), "meter is nil or not made by NewMeter")
	}
	if len(m.countSuffix) < 2 || (m.countSuffix[0] != '-' && m.countSuffix[0] != '_') {
		return newError(ErrInvalidName, "meter count suffix", "\""+m.countSuffix+"\" must be '-' or '_' and a name, e.g. \"-count\"")
	}
	rateName, countName := m.names(base)
	if rateName.Name == countName.Name {
		return newError(ErrDuplicateMetric, countName.String(), "the count suffix equals \"-rate\"")
	}
	rn, err := s.reg.checkNewName(rateName)
	if err != nil {
		return err
	}
	cn, err := s.reg.checkNewName(countName)
	if err != nil {
		return err
	}
	if m.inUse() {
		return newError(ErrStatInUse, base.String(), "the meter is already added to a sensor")
	}
	s.attach(m, metric{name: rn, kind: KindGauge, stat: m.rate}, metric{name: cn, kind: KindCounter, stat: meterTotal{m}})
	return nil
}

// attach is Add's and AddMeter's last step, once every check passed: rec
// is bound to the registry's config and recorded into as one entry, which
// lives while any of its metrics does, and its metrics (name, kind and
// stat set) are registered, in order, as the sensor's.
func (s *Sensor) attach(rec interface {
	recorder
	bind(cfg *Config)
}, metrics ...metric) {
	rec.bind(&s.reg.cfg)
	e := &sensorEntry{rec: rec, live: len(metrics)}
	s.entries = append(s.entries, e)
	for _, m := range metrics {
		m.key, m.sensor, m.entry = m.name.String(), s, e
		s.reg.insert(&m)
	}
}

// statIsNil reports a nil interface or a typed nil pointer of one of the
// package's stats (Stat is sealed, so the list is complete).
func statIsNil(s Stat) bool {
	switch v := s.(type) {
	case nil:
		return true
	case *CumulativeSum:
		return v == nil
	case *CumulativeCount:
		return v == nil
	case *WindowedSum:
		return v == nil
	case *WindowedCount:
		return v == nil
	case *Max:
		return v == nil
	case *Min:
		return v == nil
	case *Avg:
		return v == nil
	case *Rate:
		return v == nil
	default:
		return false
	}
}

// dropMetric forgets a metric of this sensor; the entry stops being recorded
// into when none of its metrics is left.
func (s *Sensor) dropMetric(m *metric) {
	for i, x := range s.metrics {
		if x == m {
			s.metrics = append(s.metrics[:i], s.metrics[i+1:]...)
			break
		}
	}
	m.entry.live--
	if m.entry.live > 0 {
		return
	}
	for i, e := range s.entries {
		if e == m.entry {
			s.entries = append(s.entries[:i], s.entries[i+1:]...)
			return
		}
	}
}
