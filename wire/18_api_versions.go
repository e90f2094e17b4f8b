package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/txn"
)

// transactionVersionFeature is TransactionVersion.FEATURE_NAME.
const transactionVersionFeature = "transaction.version"

// ApiVersions: v0-5 (Kafka 4.x). Every served key with its version range
// (Produce advertised from v0, ApiKeys.toApiVersion's KAFKA-18659 special
// case, though v0-2 are refused), and from v3 the features (KIP-584) of
// the protocols coordsim serves (servedFeatures). A version above ours is answered at v0 with
// UNSUPPORTED_VERSION and our ApiVersions range (KIP-511,
// SocketServer/ApiVersionsRequest.getErrorResponse), so clients downgrade.
// v3+ carries the client's software name and version, which Kafka checks
// (ApiVersionsRequest.isValid): INVALID_REQUEST when either is malformed.

const apiVersionsKey = 18

var apiApiVersions = api{key: apiVersionsKey, min: 0, max: 5, handle: handleApiVersions}

func handleApiVersions(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.ApiVersionsRequest)
	resp := req.ResponseKind().(*kmsg.ApiVersionsResponse)
	if req.Version >= 3 && (!validSoftwareNameVersion(req.ClientSoftwareName) || !validSoftwareNameVersion(req.ClientSoftwareVersion)) {
		resp.ErrorCode = kerr.InvalidRequest.Code
		return resp, nil
	}
	r.cl.apis.each(func(a *api) {
		k := kmsg.NewApiVersionsResponseApiKey()
		k.ApiKey, k.MinVersion, k.MaxVersion = a.key, a.min, a.max
		if a.key == apiProduce.key {
			k.MinVersion = produceAdvertisedMin
		}
		resp.ApiKeys = append(resp.ApiKeys, k)
	})
	for _, f := range servedFeatures {
		sf := kmsg.NewApiVersionsResponseSupportedFeature()
		sf.Name, sf.MinVersion, sf.MaxVersion = f.name, 0, f.level
		resp.SupportedFeatures = append(resp.SupportedFeatures, sf)
		ff := kmsg.NewApiVersionsResponseFinalizedFeature()
		ff.Name, ff.MinVersionLevel, ff.MaxVersionLevel = f.name, f.level, f.level
		resp.FinalizedFeatures = append(resp.FinalizedFeatures, ff)
	}
	// transaction.version: every level is supported, the configured one
	// finalized (a level of 0 is not listed, as KRaft leaves out a
	// feature at 0).
	sf := kmsg.NewApiVersionsResponseSupportedFeature()
	sf.Name, sf.MinVersion, sf.MaxVersion = transactionVersionFeature, 0, int16(txn.LatestTransactionVersion)
	resp.SupportedFeatures = append(resp.SupportedFeatures, sf)
	if level := int16(r.cl.cfg.Transactions.TransactionVersion); level > 0 {
		ff := kmsg.NewApiVersionsResponseFinalizedFeature()
		ff.Name, ff.MinVersionLevel, ff.MaxVersionLevel = transactionVersionFeature, level, level
		resp.FinalizedFeatures = append(resp.FinalizedFeatures, ff)
	}
	resp.FinalizedFeaturesEpoch = finalizedFeaturesEpoch
	return resp, nil
}

// feature is one KIP-584 feature coordsim serves, at the level it serves.
type feature struct {
	name  string
	level int16
}

// servedFeatures are the features whose level says what coordsim serves,
// each both supported (0 to level, as Kafka's BrokerFeatures advertise from
// 0) and finalized at that level: group.version 1 (GroupVersion.GV_1, the
// KIP-848 consumer protocol), share.version 1 (ShareVersion.SV_1, KIP-932
// share groups; SV_2, the dead letter queue of KIP-1191, is not served),
// streams.version 1 (StreamsVersion.SV_1, KIP-1071 streams groups).
// transaction.version is the configured level
// (wire.Config.Transactions.TransactionVersion, 2 by default, as Kafka 4.x
// finalizes): at 2 kgo's and Java's transactional producers run KIP-890
// part 2 (kgo's supportsKIP890p2 reads the finalized level). Left out on
// purpose: metadata.version, kraft.version and
// eligible.leader.replicas.version, which describe a KRaft controller and
// replication coordsim does not have and no client gates on.
var servedFeatures = []feature{
	{"group.version", 1},
	{"share.version", 1},
	{"streams.version", 1},
}

// finalizedFeaturesEpoch is the epoch of the finalized features: they never
// change here. Kafka's is the metadata offset they were read at; a client
// reads the finalized features only when the epoch is not -1 (kgo's
// broker.go), so it must not be -1.
const finalizedFeaturesEpoch = 1

// unsupportedApiVersions is the v0 answer to an ApiVersions version we do
// not speak.
func unsupportedApiVersions(a *api) kmsg.Response {
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.ErrorCode = kerr.UnsupportedVersion.Code
	k := kmsg.NewApiVersionsResponseApiKey()
	k.ApiKey, k.MinVersion, k.MaxVersion = a.key, a.min, a.max
	resp.ApiKeys = append(resp.ApiKeys, k)
	return resp
}

// validSoftwareNameVersion is Kafka's SOFTWARE_NAME_VERSION_PATTERN,
// [a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?.
func validSoftwareNameVersion(s string) bool {
	alnum := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	if s == "" || !alnum(s[0]) || !alnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !alnum(c) && c != '-' && c != '.' {
			return false
		}
	}
	return true
}
