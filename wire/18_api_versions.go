package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/kerr"
)

// ApiVersions: v0-5 (Kafka 4.x). Every served key with its version range;
// no features. A version above ours is answered at v0 with
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
		resp.ApiKeys = append(resp.ApiKeys, k)
	})
	return resp, nil
}

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
