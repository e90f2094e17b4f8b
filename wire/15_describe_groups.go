package wire

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
)

// DescribeGroups: v0-6 (Kafka 4.x), the classic API. Only classic groups
// are described; any other group, or none, is GROUP_ID_NOT_FOUND with
// Kafka's message from v6 and state Dead before, as Kafka's
// GroupMetadataManager.describeGroups answers (its classicGroup lookup
// throws GroupIdNotFoundException for a non-classic group). A classic
// group shows its members with their client host and their assignment;
// a Stable group also its protocol name and each member's metadata in
// that protocol (ClassicGroupMember.describe), any other state neither
// (describeNoMetadata: the protocol is "" and the metadata empty, but the
// assignment the member last got, or a downgrade gave it, shows). From
// v3, IncludeAuthorizedOperations fills each row without error with
// groupAuthorizedOperations.

var apiDescribeGroups = api{key: 15, min: 0, max: 6, handle: handleDescribeGroups}

func handleDescribeGroups(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.DescribeGroupsRequest)
	resp := req.ResponseKind().(*kmsg.DescribeGroupsResponse)
	described, err := r.describe(req.Groups)
	for i, id := range req.Groups {
		g := kmsg.NewDescribeGroupsResponseGroup()
		g.Group = id
		var rowErr error
		var d shard.GroupDescription
		switch {
		case err != nil:
			rowErr = err
		case described[i].Err != nil:
			rowErr = described[i].Err
		default:
			d = described[i].Description
			if d.Type != shard.Classic {
				rowErr = kerr.GroupIDNotFound.WithMessage("Group %s is not a classic group.", id)
			}
		}
		if rowErr != nil {
			code, msg := errCode(rowErr)
			if code == kerr.GroupIDNotFound.Code {
				if msg == nil {
					m := fmt.Sprintf("Group %s not found.", id)
					msg = &m
				}
				// Kafka describes a group it does not find as Dead at every
				// version; v6 adds the error (GroupMetadataManager.describeGroups).
				g.State = "Dead"
				if req.Version < 6 {
					resp.Groups = append(resp.Groups, g)
					continue
				}
			}
			g.ErrorCode = code
			if req.Version >= 6 {
				g.ErrorMessage = msg
			}
			resp.Groups = append(resp.Groups, g)
			continue
		}
		g.State = stateName(d.State)
		g.ProtocolType = d.ProtocolType
		describeClassicMembers(&g, d, req.Version)
		resp.Groups = append(resp.Groups, g)
	}
	// From v3, as KafkaApis.handleDescribeGroupsRequest: every row without
	// error, the Dead row of a group not found below v6 included.
	for i := range resp.Groups {
		g := &resp.Groups[i]
		g.AuthorizedOperations = authorizedOperations(req.Version >= 3 && req.IncludeAuthorizedOperations, g.ErrorCode, g.AuthorizedOperations)
	}
	return resp, nil
}

// describeClassicMembers fills a classic group's protocol and members.
func describeClassicMembers(g *kmsg.DescribeGroupsResponseGroup, d shard.GroupDescription, version int16) {
	st := d.Classic
	if st == nil {
		return
	}
	stable := d.State == shard.StateStable
	if stable {
		g.Protocol = st.ProtocolName
	}
	for _, m := range st.Members {
		rm := kmsg.NewDescribeGroupsResponseGroupMember()
		rm.MemberID, rm.ClientID, rm.ClientHost = m.MemberID, m.ClientID, m.ClientHost
		if version >= 4 {
			rm.InstanceID = nullIfEmpty(m.InstanceID)
		}
		rm.ProtocolMetadata, rm.MemberAssignment = []byte{}, []byte{}
		if stable {
			rm.ProtocolMetadata = classicMetadata(m, st.ProtocolName)
		}
		if m.Assignment != nil {
			rm.MemberAssignment = m.Assignment
		}
		g.Members = append(g.Members, rm)
	}
}

// classicMetadata is the member's metadata in protocol (empty if none).
func classicMetadata(m shard.ClassicMember, protocol string) []byte {
	for _, p := range m.Protocols {
		if p.Name == protocol && p.Metadata != nil {
			return p.Metadata
		}
	}
	return []byte{}
}
