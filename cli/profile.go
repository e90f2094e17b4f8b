package cli

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/pprof"
)

// profileFlags are --cpuprofile and --memprofile, which run, sweep and
// serve share: runtime/pprof profiles of the command, for go tool pprof.
// The profiler samples the wall clock from its own goroutine and never
// reaches the simulation, whose trace stays the same.
type profileFlags struct{ cpuPath, memPath string }

func addProfileFlags(fs *flag.FlagSet) *profileFlags {
	p := &profileFlags{}
	fs.StringVar(&p.cpuPath, "cpuprofile", "", "write a pprof CPU profile of the command to `file` (go tool pprof reads it)")
	fs.StringVar(&p.memPath, "memprofile", "", "write a pprof heap profile to `file` at exit, after a GC (go tool pprof reads it; -sample_index=alloc_space shows every allocation of the command)")
	return p
}

// profiling is a command's started profiles: the files are open and the
// CPU profiler runs until finish.
type profiling struct{ cpu, mem *outFile }

// start creates the files, so that a bad path fails before any work (the
// caller exits exitIO), and starts the CPU profiler.
func (p *profileFlags) start() (*profiling, error) {
	pr := &profiling{}
	for _, o := range []struct {
		flag, path string
		f          **outFile
	}{{"--cpuprofile", p.cpuPath, &pr.cpu}, {"--memprofile", p.memPath, &pr.mem}} {
		if o.path == "" {
			continue
		}
		f, err := createOut(o.flag, o.path)
		if err != nil {
			pr.abandon()
			return nil, err
		}
		*o.f = f
	}
	if pr.cpu != nil {
		if err := pprof.StartCPUProfile(pr.cpu); err != nil {
			pr.abandon()
			return nil, fmt.Errorf("--cpuprofile %s: %w", p.cpuPath, err)
		}
	}
	return pr, nil
}

func (pr *profiling) abandon() {
	for _, f := range []*outFile{pr.cpu, pr.mem} {
		if f != nil {
			f.abandon()
		}
	}
}

// finish stops the CPU profiler, writes the heap profile after a GC (so
// that its in-use figures are what is live at exit and its allocation
// counts are complete) and closes both files. A profile that failed to
// write is reported as cmd's error and turns a finished command's code
// (0 or 1) into exitIO, as run's other files do; an interrupted or
// misused command keeps its code.
func (pr *profiling) finish(cmd string, stderr io.Writer, code int) int {
	var errs []error
	if pr.cpu != nil {
		pprof.StopCPUProfile()
		errs = append(errs, pr.cpu.close())
	}
	if pr.mem != nil {
		runtime.GC()
		errs = append(errs, pr.mem.writeAndClose(func(w io.Writer) error { return pprof.Lookup("heap").WriteTo(w, 0) }))
	}
	for _, err := range errs {
		if err == nil {
			continue
		}
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		if code == exitOK || code == exitViolation {
			code = exitIO
		}
	}
	return code
}
