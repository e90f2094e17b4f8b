package coordtest_test

import (
	"testing"

	"github.com/coordsim/coordsim/coordinator/coordtest"
)

// TestScenarios runs the coordinator scenario files under testdata/; rewrite
// their expected output with `go test ./coordinator/coordtest -rewrite` and
// review the diff.
func TestScenarios(t *testing.T) {
	coordtest.RunScenarios(t, "testdata/*.txt")
}
