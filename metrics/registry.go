package metrics

import (
	"errors"
	"slices"
	"strconv"
)

// maxCollectErrors bounds the errors SnapshotChecked reports from one call.
const maxCollectErrors = 16

// Registry holds sensors, metrics and collectors (Kafka's Metrics). It is not
// safe for concurrent use, and none of its methods reads a clock: every time is
// the caller's nowMs.
type Registry struct {
	cfg        Config
	sensors    map[string]*Sensor
	byKey      map[string]*metric
	sorted     []*metric // by MetricName.Compare: the order metrics are measured in
	collectors []collectorEntry
	nextID     CollectorID
}

// metric is one registered metric: a stat measured from a sensor, or a gauge
// function.
type metric struct {
	name   MetricName // normalized
	key    string     // name.String()
	kind   Kind
	stat   measurable
	gauge  func(nowMs int64) float64
	sensor *Sensor
	entry  *sensorEntry
}

type measurable interface {
	measure(cfg *Config, nowMs int64) float64
}

func (m *metric) value(cfg *Config, nowMs int64) float64 {
	if m.gauge != nil {
		return m.gauge(nowMs)
	}
	return m.stat.measure(cfg, nowMs)
}

// Collector emits the series of dynamic families at snapshot time, e.g.
// group-count{protocol}, consumer-group-count{state}, or one series per live
// group; a series it stops emitting is gone from the next snapshot. It must
// emit each series once, and must not modify the registry.
type Collector func(nowMs int64, emit func(name MetricName, kind Kind, value float64))

// CollectorID identifies a registered collector.
type CollectorID uint64

type collectorEntry struct {
	id CollectorID
	fn Collector
}

// Sample is one measured series of a snapshot.
type Sample struct {
	Name  MetricName
	Kind  Kind
	Value float64
}

// NewRegistry returns an empty registry whose sampled stats use cfg (zero fields
// take Kafka's defaults). An invalid cfg is an ErrInvalidConfig error naming the
// field.
func NewRegistry(cfg Config) (*Registry, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Registry{
		cfg:     cfg.withDefaults(),
		sensors: make(map[string]*Sensor),
		byKey:   make(map[string]*metric),
	}, nil
}

// Config returns the registry's config with defaults filled in.
func (r *Registry) Config() Config { return r.cfg }

// Sensor returns the sensor called name, creating it with the given parents if
// it does not exist (Kafka's Metrics.sensor; parents given for an existing
// sensor are ignored). A malformed name, or a parent that is nil, removed or of
// another registry, is an *Error and nothing is created.
func (r *Registry) Sensor(name string, parents ...*Sensor) (*Sensor, error) {
	if err := checkSensorName(name); err != nil {
		return nil, err
	}
	if s, ok := r.sensors[name]; ok {
		return s, nil
	}
	for i, p := range parents {
		switch {
		case p == nil:
			return nil, newError(ErrNilStat, name, "parent "+strconv.Itoa(i)+" is nil")
		case p.reg != r:
			return nil, newError(ErrForeignSensor, name, "parent "+strconv.Quote(p.name)+" belongs to another registry")
		case p.removed:
			return nil, newError(ErrSensorRemoved, name, "parent "+strconv.Quote(p.name)+" was removed")
		}
	}
	s := &Sensor{name: name, reg: r, parents: slices.Clone(parents)}
	for _, p := range parents {
		p.children = append(p.children, s)
	}
	r.sensors[name] = s
	return s, nil
}

// RemoveSensor removes the sensor called name, its metrics and, recursively,
// its child sensors (Kafka's removeSensor). It reports whether the sensor
// existed.
func (r *Registry) RemoveSensor(name string) bool {
	s, ok := r.sensors[name]
	if !ok {
		return false
	}
	r.removeSensor(s)
	return true
}

func (r *Registry) removeSensor(s *Sensor) {
	if s.removed {
		return
	}
	s.removed = true
	delete(r.sensors, s.name)
	for _, m := range slices.Clone(s.metrics) {
		r.remove(m)
	}
	for _, p := range s.parents {
		p.children = slices.DeleteFunc(p.children, func(c *Sensor) bool { return c == s })
	}
	children := s.children
	s.children = nil
	for _, c := range children {
		r.removeSensor(c)
	}
}

// AddMetric registers a gauge computed by fn at snapshot time (Kafka's
// addMetric with a Measurable). A malformed or used name, or a nil fn, is an
// *Error and nothing is registered.
func (r *Registry) AddMetric(name MetricName, fn func(nowMs int64) float64) error {
	if fn == nil {
		return newError(ErrNilFunc, name.String(), "gauge function is nil")
	}
	n, err := r.checkNewName(name)
	if err != nil {
		return err
	}
	r.insert(&metric{name: n, key: n.String(), kind: KindGauge, gauge: fn})
	return nil
}

// RemoveMetric removes the metric called name, whether a gauge or a sensor's
// stat; the sensor stops recording into a stat none of whose metrics is left.
// It reports whether the metric existed. Collector series are not affected.
func (r *Registry) RemoveMetric(name MetricName) bool {
	n, err := name.normalize()
	if err != nil {
		return false
	}
	m, ok := r.byKey[n.String()]
	if !ok {
		return false
	}
	r.remove(m)
	return true
}

// Value measures the registered metric called name at nowMs and reports
// whether it exists. Measuring purges samples, as a snapshot does.
// Collector series are not looked up.
func (r *Registry) Value(name MetricName, nowMs int64) (float64, bool) {
	n, err := name.normalize()
	if err != nil {
		return 0, false
	}
	m, ok := r.byKey[n.String()]
	if !ok {
		return 0, false
	}
	return m.value(&r.cfg, nowMs), true
}

// RegisterCollector adds a collector, called on every snapshot after the
// registered metrics, in registration order. A nil collector is an ErrNilFunc
// error.
func (r *Registry) RegisterCollector(c Collector) (CollectorID, error) {
	if c == nil {
		return 0, newError(ErrNilFunc, "collector", "collector is nil")
	}
	r.nextID++
	r.collectors = append(r.collectors, collectorEntry{id: r.nextID, fn: c})
	return r.nextID, nil
}

// UnregisterCollector removes a collector and reports whether it was
// registered; its series are gone from the next snapshot.
func (r *Registry) UnregisterCollector(id CollectorID) bool {
	n := len(r.collectors)
	r.collectors = slices.DeleteFunc(r.collectors, func(e collectorEntry) bool { return e.id == id })
	return len(r.collectors) != n
}

// Snapshot measures every metric and runs every collector at nowMs, and returns
// the samples sorted by (name, group, tags). The same calls at the same times
// give the same snapshot. Collector emissions that are invalid or repeat a
// series are dropped; SnapshotChecked reports them.
func (r *Registry) Snapshot(nowMs int64) []Sample {
	samples, _ := r.SnapshotChecked(nowMs)
	return samples
}

// SnapshotChecked is Snapshot that also reports collector emissions it dropped
// (a malformed name, an invalid kind, or a series already registered or
// emitted), as joined *Errors, at most 16. The samples are complete either way.
func (r *Registry) SnapshotChecked(nowMs int64) ([]Sample, error) {
	out := make([]Sample, 0, len(r.sorted))
	for _, m := range r.sorted {
		name := m.name
		name.Tags = slices.Clone(name.Tags) // the caller may modify its copy
		out = append(out, Sample{Name: name, Kind: m.kind, Value: m.value(&r.cfg, nowMs)})
	}
	if len(r.collectors) == 0 {
		return out, nil
	}
	var errs []error
	fail := func(err error) {
		if len(errs) < maxCollectErrors {
			errs = append(errs, err)
		}
	}
	emitted := make(map[string]struct{})
	emit := func(name MetricName, kind Kind, value float64) {
		n, err := name.normalize()
		if err != nil {
			fail(err)
			return
		}
		key := n.String()
		if !kind.valid() {
			fail(newError(ErrInvalidKind, key, "kind "+strconv.Itoa(int(kind))))
			return
		}
		if _, ok := r.byKey[key]; ok {
			fail(newError(ErrDuplicateMetric, key, "a collector emitted a registered metric"))
			return
		}
		if _, ok := emitted[key]; ok {
			fail(newError(ErrDuplicateMetric, key, "emitted twice"))
			return
		}
		emitted[key] = struct{}{}
		out = append(out, Sample{Name: n, Kind: kind, Value: value})
	}
	for _, c := range slices.Clone(r.collectors) {
		c.fn(nowMs, emit)
	}
	slices.SortFunc(out, func(a, b Sample) int { return a.Name.Compare(b.Name) })
	return out, errors.Join(errs...)
}

// checkNewName validates name and checks it is not registered; it returns the
// normalized name.
func (r *Registry) checkNewName(name MetricName) (MetricName, error) {
	n, err := name.normalize()
	if err != nil {
		return MetricName{}, err
	}
	if _, ok := r.byKey[n.String()]; ok {
		return MetricName{}, newError(ErrDuplicateMetric, n.String(), "already registered")
	}
	return n, nil
}

// insert registers a metric whose name checkNewName accepted.
func (r *Registry) insert(m *metric) {
	r.byKey[m.key] = m
	i, _ := slices.BinarySearchFunc(r.sorted, m, func(a, b *metric) int { return a.name.Compare(b.name) })
	r.sorted = slices.Insert(r.sorted, i, m)
	if m.sensor != nil {
		m.sensor.metrics = append(m.sensor.metrics, m)
	}
}

// remove unregisters a metric and detaches it from its sensor.
func (r *Registry) remove(m *metric) {
	delete(r.byKey, m.key)
	if i, ok := slices.BinarySearchFunc(r.sorted, m, func(a, b *metric) int { return a.name.Compare(b.name) }); ok {
		r.sorted = slices.Delete(r.sorted, i, i+1)
	}
	if m.sensor != nil {
		m.sensor.dropMetric(m)
	}
}
