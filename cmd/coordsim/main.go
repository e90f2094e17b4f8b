// Command coordsim runs Kafka group-coordinator simulations.
//
// Usage:
//
//	coordsim run [--seed N] [--groups N] [--duration D]
//
// Until the simulator lands, run drives a built-in demo workload on one
// broker hosting every shard, on virtual time, and prints what happened.
// Exit codes: 0 success, 1 failure, 2 bad usage.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/coordsim/coordsim/internal/demo"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: coordsim <command> [flags]

commands:
  run     run the built-in demo workload on virtual time
  help    show this help
`

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		args = []string{"run"}
	}
	switch args[0] {
	case "run":
		return runDemo(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "coordsim: unknown command %q\n%s", args[0], usage)
	return 2
}

func runDemo(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := demo.Options{}
	fs.Uint64Var(&o.Seed, "seed", 1, "random seed; the same seed gives the same output")
	fs.IntVar(&o.Groups, "groups", 2000, "groups created over the run")
	fs.DurationVar(&o.Duration, "duration", 10*24*time.Hour, "virtual time to simulate")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if err := o.Validate(); err != nil {
		fmt.Fprintf(stderr, "coordsim run: %v\n", err)
		return 2
	}
	began := time.Now() // wall time, for the report only; never reaches the simulation
	rep, err := demo.Run(o)
	if err != nil {
		fmt.Fprintf(stderr, "coordsim run: %v\n", err)
		return 1
	}
	rep.Print(stdout, o, time.Since(began))
	fmt.Fprintf(stdout, "replay: go run ./cmd/coordsim run --seed %d --groups %d --duration %s\n", o.Seed, o.Groups, o.Duration)
	return 0
}
