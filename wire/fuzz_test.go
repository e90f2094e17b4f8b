package wire

import (
	"context"
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// FuzzHandleFrame feeds arbitrary request frames (what follows the size
// prefix) to the decoder and dispatcher of a running cluster. Whatever the
// bytes, handling must not panic, and it either answers with a response
// that encodes or fails with an error that closes the connection.
func FuzzHandleFrame(f *testing.F) {
	formatter := kmsg.NewRequestFormatter(kmsg.FormatterClientID("fuzz"))
	seed := func(req kmsg.Request) {
		f.Add(formatter.AppendRequest(nil, req, 1)[4:])
	}
	av := kmsg.NewPtrApiVersionsRequest()
	av.Version, av.ClientSoftwareName, av.ClientSoftwareVersion = 3, "fuzz", "1"
	seed(av)
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 12
	seed(md)
	fc := kmsg.NewPtrFindCoordinatorRequest()
	fc.Version, fc.CoordinatorKeys = 4, []string{"g"}
	seed(fc)
	hb := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	hb.Version, hb.Group, hb.MemberID, hb.SubscribedTopicNames = 1, "g", "m", []string{"t"}
	seed(hb)
	oc := kmsg.NewPtrOffsetCommitRequest()
	oc.Version, oc.Group, oc.Generation = 9, "g", -1
	seed(oc)
	ct := kmsg.NewPtrCreateTopicsRequest()
	ct.Version = 7
	ct.Topics = []kmsg.CreateTopicsRequestTopic{{Topic: "t", NumPartitions: 2, ReplicationFactor: 1}}
	seed(ct)
	f.Add([]byte{0, 18, 0, 99, 0, 0, 0, 1, 0, 0})

	cfg := DefaultConfig()
	cfg.Brokers = 1
	cfg.Coordinator.NumPartitions = 3
	cfg.FetchWaitMax = 0 // a fuzzed Fetch must not wait for data
	cl, err := Start(context.Background(), cfg)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(cl.Close)
	b := cl.brokers[0]
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, _, err := cl.handleFrame(b, newConnState(), body)
		var fe *frameError
		switch {
		case errors.Is(err, errNoResponse):
		case err != nil:
			if !errors.As(err, &fe) {
				t.Fatalf("a handler failed with %v, not a frame error", err)
			}
		default:
			_ = appendResponse(nil, 1, resp)
		}
	})
}
