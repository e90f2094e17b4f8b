package assignor_test

import (
	"fmt"

	"github.com/coordsim/coordsim/assignor"
)

// A broker offers the assignors of group.consumer.assignors; a group uses
// the one its members name most, else the first.
func Example() {
	reg := assignor.Default()
	a := reg.Preferred([]string{"range", ""})
	target, err := a.Assign(&assignor.Spec{
		Topics: []assignor.Topic{{Name: "orders", Partitions: 3}, {Name: "payments", Partitions: 3}},
		Members: []assignor.Member{
			{ID: "m1", Topics: []string{"orders", "payments"}},
			{ID: "m2", Topics: []string{"orders", "payments"}},
		},
	})
	if err != nil {
		panic(err)
	}
	for _, m := range target {
		fmt.Println(m.MemberID, m.Partitions)
	}
	fmt.Println(reg.CheckSupported("sticky"))
	// Output:
	// m1 [{orders [0 1]} {payments [0 1]}]
	// m2 [{orders [2]} {payments [2]}]
	// UNSUPPORTED_ASSIGNOR: ServerAssignor sticky is not supported. Supported assignors: uniform, range.
}
