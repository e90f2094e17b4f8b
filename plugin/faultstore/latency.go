package faultstore

import (
	"fmt"
	"math"
	"time"
)

type latencyKind uint8

const (
	latencyFixed latencyKind = iota
	latencyUniform
	latencyExponential
)

// Latency is a distribution of call latencies. The zero value is Fixed(0). A latency
// is drawn for every call from one uniform value of the Store's source; the Store
// reports it in the Decision and sleeps only when given a Sleep hook.
type Latency struct {
	kind latencyKind
	a, b time.Duration // fixed: a; uniform: [a, b]; exponential: mean a, capped at b
}

// Fixed is a latency of exactly d.
func Fixed(d time.Duration) Latency { return Latency{kind: latencyFixed, a: d} }

// Uniform is a latency drawn uniformly from [lo, hi].
func Uniform(lo, hi time.Duration) Latency { return Latency{kind: latencyUniform, a: lo, b: hi} }

// Exponential is a latency drawn from an exponential distribution of the given mean,
// capped at limit: mostly short calls with a long tail, as a remote store has. The
// cap keeps a simulation's virtual time bounded.
func Exponential(mean, limit time.Duration) Latency {
	return Latency{kind: latencyExponential, a: mean, b: limit}
}

// Draw maps u, a uniform value in [0, 1), to a latency of the distribution. Drawing
// by inverse transform from one value keeps the number of draws per call fixed.
func (l Latency) Draw(u float64) time.Duration {
	u = min(max(u, 0), math.Nextafter(1, 0))
	switch l.kind {
	case latencyUniform:
		return l.a + time.Duration(u*float64(l.b-l.a))
	case latencyExponential:
		v := -float64(l.a) * math.Log1p(-u)
		if v >= float64(l.b) {
			return l.b
		}
		return time.Duration(v)
	default:
		return l.a
	}
}

// String describes the distribution, e.g. "uniform[1ms,5ms]".
func (l Latency) String() string {
	switch l.kind {
	case latencyUniform:
		return fmt.Sprintf("uniform[%v,%v]", l.a, l.b)
	case latencyExponential:
		return fmt.Sprintf("exponential(mean %v, cap %v)", l.a, l.b)
	default:
		return fmt.Sprintf("fixed(%v)", l.a)
	}
}

func (l Latency) validate() error {
	switch l.kind {
	case latencyFixed:
		if l.a < 0 {
			return fmt.Errorf("faultstore: negative latency %v", l.a)
		}
	case latencyUniform:
		if l.a < 0 || l.b < l.a {
			return fmt.Errorf("faultstore: uniform latency [%v, %v] needs 0 <= min <= max", l.a, l.b)
		}
	case latencyExponential:
		if l.a <= 0 || l.b < 0 {
			return fmt.Errorf("faultstore: exponential latency needs a positive mean and a non-negative cap, not %v and %v", l.a, l.b)
		}
	}
	return nil
}
