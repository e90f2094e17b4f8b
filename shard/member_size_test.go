package shard

import (
	"testing"
	"unsafe"
)

// TestMemberSize proves a member struct still fits the 256-byte size class
// issue 25 brought it down to (504 B before, in the 512 B class): a new
// field that pushes it to the next class costs every member of every group
// 32 B or more, so it should go behind a pointer (streamsMember,
// consumerMember) or fill padding.
func TestMemberSize(t *testing.T) {
	if got := unsafe.Sizeof(member{}); got > 256 {
		t.Fatalf("member is %d B, over the 256 B size class", got)
	}
}
