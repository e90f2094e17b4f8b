package wire

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// FuzzHandleFrame feeds arbitrary request frames (what follows the size
// prefix) to the decoder and dispatcher of a running cluster. Whatever the
// bytes, handling must not panic or hang, and it either answers with a
// response that encodes or fails with an error that closes the connection.
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
	hb.RebalanceTimeoutMillis, hb.Topics = 30000, []kmsg.ConsumerGroupHeartbeatRequestTopic{} // a valid join
	seed(hb)
	oc := kmsg.NewPtrOffsetCommitRequest()
	oc.Version, oc.Group, oc.Generation = 9, "g", -1
	seed(oc)
	ct := kmsg.NewPtrCreateTopicsRequest()
	ct.Version = 7
	ct.Topics = []kmsg.CreateTopicsRequestTopic{{Topic: "t", NumPartitions: 2, ReplicationFactor: 1}}
	seed(ct)
	dt := kmsg.NewPtrDeleteTopicsRequest()
	dt.Version = 6
	dt.Topics = []kmsg.DeleteTopicsRequestTopic{{Topic: kmsg.StringPtr("t")}, {TopicID: [16]byte{1}}, {}, {Topic: kmsg.StringPtr("t")}}
	seed(dt)
	dtv1 := kmsg.NewPtrDeleteTopicsRequest()
	dtv1.Version, dtv1.TopicNames = 1, []string{"t", "u"}
	seed(dtv1)
	iac := kmsg.NewPtrIncrementalAlterConfigsRequest()
	iac.Version = 1
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeGroupConfig, "g"
	for _, kv := range [][2]string{{"consumer.session.timeout.ms", "50000"}, {"share.auto.offset.reset", "by_duration:PT1H"}, {"streams.num.standby.replicas", "1"}} {
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name, c.Value = kv[0], kmsg.StringPtr(kv[1])
		res.Configs = append(res.Configs, c)
	}
	iac.Resources = append(iac.Resources, res)
	seed(iac)
	dc := kmsg.NewPtrDescribeConfigsRequest()
	dc.Version, dc.IncludeSynonyms = 4, true
	for _, typ := range []kmsg.ConfigResourceType{kmsg.ConfigResourceTypeGroupConfig, kmsg.ConfigResourceTypeTopic, kmsg.ConfigResourceTypeBroker} {
		r := kmsg.NewDescribeConfigsRequestResource()
		r.ResourceType, r.ResourceName = typ, "0"
		dc.Resources = append(dc.Resources, r)
	}
	seed(dc)
	lcr := kmsg.NewPtrListConfigResourcesRequest()
	lcr.Version, lcr.ResourceTypes = 1, []int8{32, 2, 4, 8, 16, 32, 3, -1}
	seed(lcr)
	// A transactional producer's first requests (the transaction
	// coordinator's handlers are reached with a known transactional id).
	fct := kmsg.NewPtrFindCoordinatorRequest()
	fct.Version, fct.CoordinatorType, fct.CoordinatorKeys = 4, 1, []string{"t"}
	seed(fct)
	ipt := kmsg.NewPtrInitProducerIDRequest()
	ipt.Version, ipt.TransactionalID, ipt.TransactionTimeoutMillis, ipt.ProducerID, ipt.ProducerEpoch = 5, kmsg.StringPtr("t"), 1000, -1, -1
	seed(ipt)
	apt := kmsg.NewPtrAddPartitionsToTxnRequest()
	apt.Version, apt.TransactionalID, apt.ProducerID = 3, "t", 0
	apt.Topics = []kmsg.AddPartitionsToTxnRequestTopic{{Topic: "t", Partitions: []int32{0}}}
	seed(apt)
	// transaction.version 2 (KIP-890 part 2): a Produce v12 transactional
	// batch adds its partition, a TxnOffsetCommit v5 its group, and EndTxn
	// v5 bumps the epoch.
	tb := fuzzBatch(0, 0, 0, 1)
	tb[22] |= 0x10 // transactional
	pv12 := kmsg.NewPtrProduceRequest()
	pv12.Version, pv12.Acks, pv12.TimeoutMillis, pv12.TransactionID = 12, -1, 1000, kmsg.StringPtr("t")
	pv12.Topics = []kmsg.ProduceRequestTopic{{Topic: "t", Partitions: []kmsg.ProduceRequestTopicPartition{{Partition: 0, Records: fixBatchHeader(tb)}}}}
	seed(pv12)
	toc := kmsg.NewPtrTxnOffsetCommitRequest()
	toc.Version, toc.TransactionalID, toc.Group, toc.Generation = 5, "t", "g", -1
	toc.Topics = []kmsg.TxnOffsetCommitRequestTopic{{Topic: "t", Partitions: []kmsg.TxnOffsetCommitRequestTopicPartition{{Partition: 0, Offset: 1}}}}
	seed(toc)
	etv5 := kmsg.NewPtrEndTxnRequest()
	etv5.Version, etv5.TransactionalID, etv5.Commit = 5, "t", true
	seed(etv5)
	cp := kmsg.NewPtrCreatePartitionsRequest()
	cp.Version = 3
	cp.Topics = []kmsg.CreatePartitionsRequestTopic{{Topic: "t", Count: 4}, {Topic: "u", Count: 2, Assignment: []kmsg.CreatePartitionsRequestTopicAssignment{{Replicas: []int32{0}}}}}
	seed(cp)
	dr := kmsg.NewPtrDeleteRecordsRequest()
	dr.Version = 2
	dr.Topics = []kmsg.DeleteRecordsRequestTopic{{Topic: "t", Partitions: []kmsg.DeleteRecordsRequestTopicPartition{{Partition: 0, Offset: -1}, {Partition: 1, Offset: 3}}}}
	seed(dr)
	tac := kmsg.NewPtrIncrementalAlterConfigsRequest()
	tac.Version = 1
	tres := kmsg.NewIncrementalAlterConfigsRequestResource()
	tres.ResourceType, tres.ResourceName = kmsg.ConfigResourceTypeTopic, "t"
	tres.Configs = []kmsg.IncrementalAlterConfigsRequestResourceConfig{{Name: "cleanup.policy", Op: kmsg.IncrementalAlterConfigOpAppend, Value: kmsg.StringPtr("compact")}, {Name: "retention.ms", Value: kmsg.StringPtr("1000")}}
	tac.Resources = append(tac.Resources, tres)
	seed(tac)
	ac := kmsg.NewPtrAlterConfigsRequest()
	ac.Version = 2
	ac.Resources = []kmsg.AlterConfigsRequestResource{{ResourceType: kmsg.ConfigResourceTypeTopic, ResourceName: "t", Configs: []kmsg.AlterConfigsRequestResourceConfig{{Name: "retention.bytes", Value: kmsg.StringPtr("100")}}}}
	seed(ac)
	f.Add([]byte{0, 18, 0, 99, 0, 0, 0, 1, 0, 0})
	// Every served key at its lowest and highest version, so the fuzzer
	// starts inside each handler rather than having to find its key.
	for _, a := range served {
		for _, v := range []int16{a.min, a.max} {
			req := kmsg.RequestForKey(a.key)
			req.SetVersion(v)
			seed(req)
		}
	}

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
		// A handler that never returns would park its connection forever;
		// crash the worker instead, so the fuzzer keeps the input.
		watch := time.AfterFunc(10*time.Second, func() {
			buf := make([]byte, 1<<20)
			panic(fmt.Sprintf("handling %x took over 10 s:\n%s", body, buf[:runtime.Stack(buf, true)]))
		})
		defer watch.Stop()
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
