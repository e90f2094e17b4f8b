// Command coordsim runs deterministic simulations of Apache Kafka's group
// coordinator on virtual time: `coordsim run`, `replay`, `sweep`,
// `scenarios`, `serve`, `version` (package cli has the program; `coordsim`
// alone prints the help).
package main

import (
	"os"

	"github.com/coordsim/coordsim/cli"
)

func main() { os.Exit(cli.Main()) }
