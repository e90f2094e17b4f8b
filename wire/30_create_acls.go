package wire

import (
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// CreateAcls: v1-3 (Kafka 4.x; KIP-896 removed v0), without an authorizer
// as AclApis.handleCreateAcls answers it: every creation SECURITY_DISABLED
// "No Authorizer is configured." (CreateAclsRequest.getErrorResponse).

var apiCreateAcls = api{key: 30, min: 1, max: 3, handle: handleCreateAcls}

func handleCreateAcls(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.CreateACLsRequest)
	resp := req.ResponseKind().(*kmsg.CreateACLsResponse)
	for range req.Creations {
		res := kmsg.NewCreateACLsResponseResult()
		res.ErrorCode, res.ErrorMessage = fkerr.SecurityDisabled.Code, kmsg.StringPtr(noAuthorizer)
		resp.Results = append(resp.Results, res)
	}
	return resp, nil
}
