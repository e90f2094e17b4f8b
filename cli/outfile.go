package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

// outFile is an output file the user asked for (--trace, --report,
// --metrics, --cpuprofile, sweep --resume): created before the run, written
// through a buffer, and closed with every write, flush and close error
// reported with the flag and the path, so that a full disk or a vanished
// directory fails the command (exitIO) instead of leaving a short file
// behind a clean exit.
type outFile struct {
	flag, path string
	f          *os.File
	buf        *bufio.Writer
	// stickyWriter writes through buf; its err is the first write error,
	// which Write returns from then on.
	stickyWriter
	closed bool
}

// createOut creates (or truncates) path for flag.
func createOut(flag, path string) (*outFile, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flag, path, err)
	}
	buf := bufio.NewWriterSize(f, 64<<10)
	return &outFile{flag: flag, path: path, f: f, buf: buf, stickyWriter: stickyWriter{w: buf}}, nil
}

// close flushes and closes the file and reports the first failure of any
// write, the flush or the close.
func (o *outFile) close() error {
	if o.closed {
		return nil
	}
	o.closed = true
	err := o.err
	if err == nil {
		err = o.buf.Flush()
	}
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", o.flag, o.path, err)
	}
	return nil
}

// writeAndClose writes the file with fn and closes it.
func (o *outFile) writeAndClose(fn func(io.Writer) error) error {
	if err := fn(o); err != nil && o.err == nil {
		o.err = err
	}
	return o.close()
}

// abandon closes a file a failed command leaves behind; its error is moot.
func (o *outFile) abandon() {
	if !o.closed {
		o.closed = true
		_ = o.f.Close()
	}
}
