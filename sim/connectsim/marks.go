package connectsim

import (
	"embed"
	"io/fs"
)

// source is this package's code: sim.MarkNames scans it, with sim's own,
// for the coverage marks a run can record (every literal passed to Mark).
//
//go:embed *.go
var source embed.FS

// Source returns this package's code, for sim.MarkNames.
func Source() fs.FS { return source }
