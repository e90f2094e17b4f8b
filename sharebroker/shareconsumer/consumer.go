// Package shareconsumer models a KafkaShareConsumer's acknowledgement rules
// over a sharebroker.Broker, so Kafka's share-consumer client cases can be
// tested as client behaviour rather than only at the broker: implicit mode
// (the default: a poll's records are ACCEPTed by the next poll, commitSync
// or close, and acknowledge() is an error) and explicit mode (every record
// of a poll is acknowledged by the application before the next poll;
// acknowledging a record twice, or one not in the current poll, is an
// error). It speaks ShareFetch/ShareAcknowledge with session epochs like the
// client: acknowledgements ride on the next ShareFetch, commitSync sends a
// ShareAcknowledge, close sends the FINAL epoch (pending acknowledgements
// committed, everything else released).
//
// Choices: one consumer fetches a fixed list of partitions (membership and
// assignment are the group coordinator's, not modelled here); records carry
// no payload; a broker error is returned as is and resets the session (the
// next poll opens a new one, as the client does after
// SHARE_SESSION_NOT_FOUND). Like sharebroker, it must never read a clock or
// start a goroutine; it is not safe for concurrent use.
package shareconsumer

import (
	"fmt"

	"github.com/coordsim/coordsim/share"
	"github.com/coordsim/coordsim/sharebroker"
)

// AckMode is share.acknowledgement.mode.
type AckMode int8

// The acknowledgement modes.
const (
	// Implicit (the default) ACCEPTs a poll's records at the next poll,
	// commitSync or close.
	Implicit AckMode = iota
	// Explicit requires acknowledge() for every record before the next poll.
	Explicit
)

// Record is one record a poll returned.
type Record struct {
	sharebroker.TopicPartition
	Offset        int64
	DeliveryCount int32
}

// IllegalStateError is KafkaShareConsumer's IllegalStateException: the
// application broke the acknowledgement rules. Nothing was sent.
type IllegalStateError struct{ Reason string }

func (e *IllegalStateError) Error() string { return "IllegalStateException: " + e.Reason }

// Consumer is one share consumer (one member of one share group).
type Consumer struct {
	b             *sharebroker.Broker
	group, member string
	mode          AckMode
	partitions    []sharebroker.TopicPartition
	epoch         int32 // the next session epoch; 0 opens a session
	// batch is the last poll's records; acked[i] is the type decided for
	// batch[i] (0: none yet); sent[i] marks those already committed.
	batch []Record
	acked []share.AcknowledgeType
	sent  []bool
}

// New returns a consumer of partitions for (group, member) in mode.
func New(b *sharebroker.Broker, group, member string, mode AckMode, partitions []sharebroker.TopicPartition) (*Consumer, error) {
	if b == nil || group == "" || member == "" || len(partitions) == 0 || (mode != Implicit && mode != Explicit) {
		return nil, fmt.Errorf("shareconsumer: a broker, a group, a member, partitions and a valid mode are needed")
	}
	return &Consumer{b: b, group: group, member: member, mode: mode, partitions: append([]sharebroker.TopicPartition(nil), partitions...)}, nil
}

// Acknowledge records typ (ACCEPT, RELEASE or REJECT) for r, sent with the
// next poll, commitSync or close. It is an IllegalStateError in implicit
// mode, for a record not in the current poll's batch, or for one already
// acknowledged.
func (c *Consumer) Acknowledge(r Record, typ share.AcknowledgeType) error {
	if c.mode != Explicit {
		return &IllegalStateError{"acknowledge() is only valid in explicit acknowledgement mode"}
	}
	if typ != share.AckAccept && typ != share.AckRelease && typ != share.AckReject {
		return fmt.Errorf("shareconsumer: acknowledge type %v is not ACCEPT, RELEASE or REJECT", typ)
	}
	for i, b := range c.batch {
		if b.TopicPartition == r.TopicPartition && b.Offset == r.Offset {
			if c.acked[i] != 0 {
				return &IllegalStateError{fmt.Sprintf("record %s-%d@%d was already acknowledged", r.Topic, r.Partition, r.Offset)}
			}
			c.acked[i] = typ
			return nil
		}
	}
	return &IllegalStateError{fmt.Sprintf("record %s-%d@%d is not in the batch of the latest poll", r.Topic, r.Partition, r.Offset)}
}

// pending returns the decided, unsent acknowledgements per partition (in
// implicit mode every undecided record counts as ACCEPT) and marks them
// sent.
func (c *Consumer) pending() []sharebroker.PartitionAcks {
	var out []sharebroker.PartitionAcks
	for i, r := range c.batch {
		typ := c.acked[i]
		if typ == 0 && c.mode == Implicit {
			typ = share.AckAccept
		}
		if typ == 0 || c.sent[i] {
			continue
		}
		c.sent[i] = true
		k := len(out) - 1
		if k < 0 || out[k].TopicPartition != r.TopicPartition {
			out = append(out, sharebroker.PartitionAcks{TopicPartition: r.TopicPartition})
			k++
		}
		bs := &out[k].Batches
		if n := len(*bs) - 1; n >= 0 && (*bs)[n].LastOffset+1 == r.Offset && (*bs)[n].Type == typ {
			(*bs)[n].LastOffset = r.Offset
		} else {
			*bs = append(*bs, share.AckBatch{FirstOffset: r.Offset, LastOffset: r.Offset, Type: typ})
		}
	}
	return out
}

// Poll fetches up to maxRecords per partition (0: the broker default),
// sending the previous batch's acknowledgements with it. In explicit mode
// every record of the previous batch must have been acknowledged first,
// else IllegalStateError and nothing is sent. It returns the per-partition
// acknowledgement errors of the piggy-backed acknowledgements first, if
// any, as an error alongside the records.
func (c *Consumer) Poll(nowMs int64, maxRecords int32) ([]Record, error) {
	if c.mode == Explicit {
		for i, r := range c.batch {
			if c.acked[i] == 0 {
				return nil, &IllegalStateError{fmt.Sprintf("record %s-%d@%d of the previous poll was not acknowledged (explicit mode)", r.Topic, r.Partition, r.Offset)}
			}
		}
	}
	if _, err := c.b.Poll(nowMs); err != nil {
		return nil, err
	}
	acks := c.pending()
	if c.epoch == 0 {
		acks = nil // an initial fetch carries none; they are lost with the old session
	}
	resp, err := c.b.ShareFetch(nowMs, sharebroker.FetchRequest{GroupID: c.group, MemberID: c.member, SessionEpoch: c.epoch,
		Partitions: c.partitions, MaxRecords: maxRecords, Acks: acks})
	c.batch, c.acked, c.sent = nil, nil, nil
	if err != nil {
		c.epoch = 0
		return nil, err
	}
	c.epoch = sharebroker.NextSessionEpoch(c.epoch)
	for _, p := range resp.Partitions {
		for _, a := range p.Records {
			for off := a.FirstOffset; off <= a.LastOffset; off++ {
				c.batch = append(c.batch, Record{TopicPartition: p.TopicPartition, Offset: off, DeliveryCount: a.DeliveryCount})
			}
		}
	}
	c.acked = make([]share.AcknowledgeType, len(c.batch))
	c.sent = make([]bool, len(c.batch))
	return c.batch, ackErr(resp.Acks)
}

// CommitSync sends the pending acknowledgements now (ShareAcknowledge) and
// returns the first per-partition error.
func (c *Consumer) CommitSync(nowMs int64) error {
	acks := c.pending()
	if len(acks) == 0 || c.epoch == 0 {
		return nil
	}
	res, err := c.b.ShareAcknowledge(nowMs, sharebroker.AckRequest{GroupID: c.group, MemberID: c.member, SessionEpoch: c.epoch, Acks: acks})
	if err != nil {
		c.epoch = 0
		return err
	}
	c.epoch = sharebroker.NextSessionEpoch(c.epoch)
	return ackErr(res)
}

// Close commits the pending acknowledgements with the FINAL epoch, which
// closes the session and releases every other record the consumer holds.
func (c *Consumer) Close(nowMs int64) error {
	if c.epoch == 0 {
		return nil
	}
	res, err := c.b.ShareAcknowledge(nowMs, sharebroker.AckRequest{GroupID: c.group, MemberID: c.member, SessionEpoch: sharebroker.FinalEpoch, Acks: c.pending()})
	c.epoch, c.batch, c.acked, c.sent = 0, nil, nil, nil
	if err != nil {
		return err
	}
	return ackErr(res)
}

func ackErr(res []sharebroker.AckResult) error {
	for _, r := range res {
		if r.Err != nil {
			return fmt.Errorf("shareconsumer: acknowledging %s-%d: %w", r.Topic, r.Partition, r.Err)
		}
	}
	return nil
}
