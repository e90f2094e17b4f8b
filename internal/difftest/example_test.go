package difftest_test

import (
	"context"
	"fmt"
	"os"

	"github.com/coordsim/coordsim/internal/difftest"
)

// ExampleRun runs 200 sequences of 200 operations through coordsim's shard
// and Kafka's own GroupCoordinatorShard and prints the summary (it needs
// java and mvn; without them OracleJar returns ErrNoJava).
func ExampleRun() {
	ctx := context.Background()
	jar, err := difftest.OracleJar(ctx, ".") // the repository root
	if err != nil {
		fmt.Fprintln(os.Stderr, "NOT RUN:", err)
		return
	}
	o, err := difftest.StartOracle(ctx, jar)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer o.Close()
	rep, err := difftest.Run(ctx, o, difftest.Options{Seeds: 200, Ops: 200, FirstSeed: 1})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	fmt.Println(rep.Summary())
	for _, d := range rep.Unexplained() {
		fmt.Println(d)
	}
}
