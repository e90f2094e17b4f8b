package wire

import (
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DescribeAcls: v1-3 (Kafka 4.x; KIP-896 removed v0). coordsim is a broker
// without an authorizer (authorizer.class.name unset), so it answers as
// AclApis.handleDescribeAcls does then: SECURITY_DISABLED "No Authorizer
// is configured.", top-level. CreateAcls (30) and DeleteAcls (31) answer
// the same on every creation and filter.

var apiDescribeAcls = api{key: 29, min: 1, max: 3, handle: handleDescribeAcls}

// noAuthorizer is AclApis' message without an authorizer.
const noAuthorizer = "No Authorizer is configured."

func handleDescribeAcls(r *request) (kmsg.Response, error) {
	resp := r.kreq.(*kmsg.DescribeACLsRequest).ResponseKind().(*kmsg.DescribeACLsResponse)
	resp.ErrorCode, resp.ErrorMessage = fkerr.SecurityDisabled.Code, kmsg.StringPtr(noAuthorizer)
	return resp, nil
}
