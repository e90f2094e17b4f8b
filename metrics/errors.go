package metrics

import "errors"

// The classes of error the package returns. Every error is an *Error that wraps
// one of them, so callers use errors.Is with these values and errors.As with
// *Error to read the subject. An entry point that returns an error has changed
// nothing.
var (
	// ErrInvalidConfig: a Config field is out of range; Subject names the field.
	ErrInvalidConfig = errors.New("invalid config")
	// ErrInvalidName: a metric name, group, tag or sensor name is malformed.
	ErrInvalidName = errors.New("invalid name")
	// ErrDuplicateMetric: a metric with the same (name, group, tags) exists.
	ErrDuplicateMetric = errors.New("duplicate metric")
	// ErrNilFunc: a gauge function or collector is nil.
	ErrNilFunc = errors.New("nil function")
	// ErrNilStat: a stat, meter or parent sensor is nil.
	ErrNilStat = errors.New("nil stat")
	// ErrStatInUse: the stat (or the sampled stat inside a Rate) was already
	// added to a sensor; a stat belongs to exactly one sensor.
	ErrStatInUse = errors.New("stat already in use")
	// ErrSensorRemoved: the sensor was removed from its registry.
	ErrSensorRemoved = errors.New("sensor removed")
	// ErrForeignSensor: a parent sensor belongs to another registry.
	ErrForeignSensor = errors.New("sensor of another registry")
	// ErrInvalidKind: a Kind other than KindGauge or KindCounter.
	ErrInvalidKind = errors.New("invalid kind")
	// ErrExposition: samples cannot be written as Prometheus text (two samples
	// map to one series, a family mixes kinds, or the prefix is malformed).
	ErrExposition = errors.New("cannot expose")
)

// Error is the error type of the package: a class (one of the Err values above),
// the subject it concerns (a Config field, a metric or sensor name) and why.
type Error struct {
	// Err is the class; errors.Is(err, ErrInvalidConfig) and so on match it.
	Err error
	// Subject is what the error is about, e.g. "Samples" or a metric name.
	Subject string
	// Reason says what is wrong with the subject.
	Reason string
}

// Error formats the error as "metrics: <class>: <subject>: <reason>".
func (e *Error) Error() string {
	s := "metrics: " + e.Err.Error()
	if e.Subject != "" {
		s += ": " + e.Subject
	}
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}

// Unwrap returns the class so errors.Is matches it.
func (e *Error) Unwrap() error { return e.Err }

func newError(class error, subject, reason string) *Error {
	return &Error{Err: class, Subject: subject, Reason: reason}
}
