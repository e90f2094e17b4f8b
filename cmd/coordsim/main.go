// Command coordsim runs deterministic simulations of Apache Kafka's group
// coordinator on virtual time.
//
//	coordsim run       [flags]   one simulation, with a summary (and optionally JSON, HTML, trace, metrics)
//	coordsim replay    [flags]   rerun a seed, stopping at a step, and print the state and trace there
//	coordsim sweep     [flags]   many seeds in parallel; one JSON line per seed and a summary
//	coordsim scenarios [-v]      list the built-in scenarios
//	coordsim version             print the version
//
// Exit codes: 0 success, 1 an invariant failed (or a sweep missed a required
// mark, or a determinism check failed), 2 bad usage or input.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: coordsim <command> [flags]

commands:
  run        run one simulation and print a summary
  replay     rerun a seed, stop at a step, print the state and trace there
  sweep      run many seeds in parallel
  scenarios  list the built-in scenarios
  version    print the version
  help       show this help

'coordsim <command> -h' lists a command's flags.
`

// Exit codes.
const (
	exitOK        = 0
	exitViolation = 1
	exitUsage     = 2
)

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "version", "--version":
		return versionCmd(stdout)
	case "run":
		return runCmd(args[1:], stdout, stderr)
	case "replay":
		return replayCmd(args[1:], stdout, stderr)
	case "sweep":
		return sweepCmd(args[1:], stdout, stderr)
	case "scenarios":
		return scenariosCmd(args[1:], stdout, stderr)
	case "serve":
		return serveCmd(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "coordsim: unknown command %q\n%s", args[0], usage)
	return exitUsage
}

// parse parses flags; ok is false when the command should exit with code.
func parse(fs *flag.FlagSet, args []string) (code int, ok bool) {
	if code, ok := parseFlags(fs, args); !ok {
		return code, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "coordsim %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return exitUsage, false
	}
	return 0, true
}
