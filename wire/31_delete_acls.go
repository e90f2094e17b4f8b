package wire

import (
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DeleteAcls: v1-3 (Kafka 4.x; KIP-896 removed v0), without an authorizer
// as AclApis.handleDeleteAcls answers it: every filter SECURITY_DISABLED
// "No Authorizer is configured." (DeleteAclsRequest.getErrorResponse).

var apiDeleteAcls = api{key: 31, min: 1, max: 3, handle: handleDeleteAcls}

func handleDeleteAcls(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.DeleteACLsRequest)
	resp := req.ResponseKind().(*kmsg.DeleteACLsResponse)
	for range req.Filters {
		res := kmsg.NewDeleteACLsResponseResult()
		res.ErrorCode, res.ErrorMessage = fkerr.SecurityDisabled.Code, kmsg.StringPtr(noAuthorizer)
		resp.Results = append(resp.Results, res)
	}
	return resp, nil
}
