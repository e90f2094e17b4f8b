package wire

import "sync/atomic"

// producerIDManager hands out producer ids for the whole endpoint, every
// broker alike, as Kafka's controller hands out producer id blocks so that
// no two producers of a cluster ever share an id (ProducerIdManager). Ids
// start at 0 and count up, so a run's ids depend only on the order of its
// InitProducerId requests.
type producerIDManager struct {
	next atomic.Int64
}

// generateProducerID returns a producer id no caller has had before
// (ProducerIdManager.generateProducerId).
func (m *producerIDManager) generateProducerID() int64 {
	return m.next.Add(1) - 1
}
