package wire

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kbin"
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Record-level reading of a v2 record batch, as Kafka's broker reads a
// produced batch before it appends it (LogValidator.validateMessagesAndAssignOffsets
// walks every record through DefaultRecordBatch's iterator) and as
// UnifiedLog.fetchOffsetByTimestamp reads the records of one batch to
// answer ListOffsets (RecordBatch.offsetOfMaxTimestamp,
// LogSegment.findOffsetByTimestamp).

// Compression codecs: the low three bits of a batch's attributes
// (Kafka's CompressionType ids).
const (
	codecNone = 0
	codecZstd = 4
	codecMask = 0x07
)

// batchCodec is the compression codec of the v2 batch in raw, -1 when raw
// is too short to hold its attributes.
func batchCodec(raw []byte) int {
	if len(raw) < 23 {
		return -1
	}
	return int(raw[22] & codecMask)
}

// decompressor is franz-go's, the one kgo consumers decode fetched batches
// with: gzip, snappy (raw and xerial framing), lz4 (frame) and zstd, the
// codecs Kafka's Compression.wrapForInput reads.
var decompressor = kgo.DefaultDecompressor()

// decompressSlots bounds how many batches are decompressed at once, across
// every connection of every broker. franz-go's decompressor bounds one
// batch's output only at math.MaxInt32, so a small compressed batch can
// expand to 2 GiB; with at most two in flight the data plane holds at most
// about 4 GiB of decompressed bytes, whatever the clients send. The
// decompressed bytes are only scanned (the log keeps the batch as sent), so
// they are garbage as soon as batchRecords returns.
var decompressSlots = make(chan struct{}, 2)

// decompress is decompressor.Decompress inside a decompressSlots slot.
func decompress(src []byte, codec int) ([]byte, error) {
	decompressSlots <- struct{}{}
	defer func() { <-decompressSlots }()
	return decompressor.Decompress(src, kgo.CompressionCodecType(codec))
}

// recordInfo is what the data plane needs of one record: its offset
// relative to the batch's first offset and its timestamp.
type recordInfo struct {
	offsetDelta int32
	timestamp   int64
	// keyless is a null key, which a compacted topic refuses.
	keyless bool
}

// recordError is why a batch's records cannot be read: Kafka's error code
// and the message of the exception its broker throws.
type recordError struct {
	code int16
	msg  string
}

// batchRecords reads every record of b (decompressing first), as Kafka's
// DefaultRecordBatch iterator does, and returns each record's offset delta
// and timestamp. A codec Kafka does not know is UNKNOWN_SERVER_ERROR (its
// CompressionType.forId throws an IllegalArgumentException, which the
// broker answers as an unexpected error), and so is a payload the codec
// cannot decompress (DefaultRecordBatch's "Failed to decompress record
// stream" KafkaException). A record that does not decode, fewer records
// than NumRecords, or bytes left after the last one are INVALID_RECORD
// (DefaultRecord.readFrom's InvalidRecordException and the iterator's
// "Incorrect declared batch size" checks).
func batchRecords(b *kmsg.RecordBatch) ([]recordInfo, *recordError) {
	src := b.Records
	switch codec := int(b.Attributes & codecMask); {
	case codec > codecZstd:
		return nil, &recordError{fkerr.UnknownServerError.Code, fmt.Sprintf("Unknown compression type id: %d", codec)}
	case codec != codecNone:
		out, err := decompress(src, codec)
		if err != nil {
			return nil, &recordError{fkerr.UnknownServerError.Code, "Failed to decompress record stream: " + err.Error()}
		}
		src = out
	}
	logAppendTime := b.Attributes&0x08 != 0
	out := make([]recordInfo, 0, max(min(int(b.NumRecords), len(src)), 0))
	rd := kbin.Reader{Src: src}
	for range b.NumRecords {
		if len(rd.Src) == 0 {
			return nil, &recordError{fkerr.InvalidRecord.Code, "Incorrect declared batch size, premature EOF reached"}
		}
		size := rd.Varint()
		if !rd.Ok() || size < 0 || int(size) > len(rd.Src) {
			return nil, &recordError{fkerr.InvalidRecord.Code, fmt.Sprintf("Invalid record size: expected %d bytes in record payload, but instead the buffer has only %d remaining bytes.", size, len(rd.Src))}
		}
		ri, err := readRecordBody(rd.Span(int(size)))
		if err != nil {
			return nil, err
		}
		ri.timestamp += b.FirstTimestamp
		if logAppendTime {
			ri.timestamp = b.MaxTimestamp
		}
		out = append(out, ri)
	}
	if len(rd.Src) != 0 {
		return nil, &recordError{fkerr.InvalidRecord.Code, "Incorrect declared batch size, records still remaining in file"}
	}
	return out, nil
}

// readRecordBody reads one record after its length, as
// DefaultRecord.readFrom does: attributes, timestamp delta, offset delta,
// key, value and headers (a header key may not be null), filling body
// exactly. The timestamp it returns is the delta.
func readRecordBody(body []byte) (recordInfo, *recordError) {
	invalid := func(msg string) (recordInfo, *recordError) {
		return recordInfo{}, &recordError{fkerr.InvalidRecord.Code, msg}
	}
	rd := kbin.Reader{Src: body}
	rd.Int8() // attributes, unused
	ri := recordInfo{timestamp: rd.Varlong()}
	ri.offsetDelta = rd.Varint()
	skip := func() int32 {
		n := rd.Varint()
		if n > 0 {
			rd.Span(int(n))
		}
		return n
	}
	ri.keyless = skip() < 0 // key, -1 for null
	skip()                  // value, -1 for null
	headers := rd.Varint()
	if rd.Ok() && headers < 0 {
		return invalid(fmt.Sprintf("Found invalid number of record headers %d", headers))
	}
	for i := int32(0); i < headers && rd.Ok(); i++ {
		if k := skip(); rd.Ok() && k < 0 {
			return invalid(fmt.Sprintf("Invalid negative header key size %d", k))
		}
		skip()
	}
	if !rd.Ok() {
		return invalid("Found invalid record structure")
	}
	if len(rd.Src) != 0 {
		return invalid(fmt.Sprintf("Invalid record size: expected to read %d bytes in record payload, but instead read %d", len(body), len(body)-len(rd.Src)))
	}
	return ri, nil
}
