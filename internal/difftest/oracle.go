package difftest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// ErrNoJava is returned by FindOracle when java or mvn is not installed:
// the differential run cannot happen, and callers must say so loudly.
var ErrNoJava = errors.New("difftest: java or mvn not found on PATH; the Kafka oracle cannot run (install a JDK 17 and Maven)")

// OracleJar returns the path of the oracle's jar under the repository root
// repo, building it with Maven when it is missing or older than its sources
// (`mvn -q -f oracle/pom.xml package`; Maven's cache in ~/.m2 is reused).
func OracleJar(ctx context.Context, repo string) (string, error) {
	if _, err := exec.LookPath("java"); err != nil {
		return "", ErrNoJava
	}
	jar := filepath.Join(repo, "oracle", "target", "coordsim-oracle.jar")
	if fresh(jar, filepath.Join(repo, "oracle")) {
		return jar, nil
	}
	if _, err := exec.LookPath("mvn"); err != nil {
		return "", ErrNoJava
	}
	cmd := exec.CommandContext(ctx, "mvn", "-q", "-f", filepath.Join(repo, "oracle", "pom.xml"), "package")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("difftest: building the oracle: %w\n%s", err, out)
	}
	return jar, nil
}

// fresh reports whether jar exists and is newer than pom.xml and every
// source file under dir/src.
func fresh(jar, dir string) bool {
	st, err := os.Stat(jar)
	if err != nil {
		return false
	}
	newer := false
	check := func(path string) {
		if s, err := os.Stat(path); err == nil && s.ModTime().After(st.ModTime()) {
			newer = true
		}
	}
	check(filepath.Join(dir, "pom.xml"))
	_ = filepath.WalkDir(filepath.Join(dir, "src"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			check(path)
		}
		return nil
	})
	return !newer
}

// Oracle is a running oracle process: Kafka's GroupCoordinatorShard behind
// a JSON-lines pipe. It is not safe for concurrent use.
type Oracle struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *tailBuffer
}

// StartOracle starts java -jar jar. Close stops it.
func StartOracle(ctx context.Context, jar string) (*Oracle, error) {
	cmd := exec.CommandContext(ctx, "java", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar", jar)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	tail := &tailBuffer{max: 8 << 10}
	cmd.Stderr = tail
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("difftest: starting the oracle: %w", err)
	}
	return &Oracle{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), stderr: tail}, nil
}

// send writes one line and reads the answer.
func (o *Oracle) send(line map[string]any) ([]byte, error) {
	b, err := json.Marshal(line)
	if err != nil {
		return nil, err
	}
	if _, err := o.in.Write(append(b, '\n')); err != nil {
		return nil, fmt.Errorf("difftest: oracle stdin: %w (stderr: %s)", err, o.stderr.String())
	}
	answer, err := o.out.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("difftest: oracle stdout: %w (stderr: %s)", err, o.stderr.String())
	}
	return answer, nil
}

// reset starts a fresh shard in the oracle, configured with props
// (broker properties, Kafka's names).
func (o *Oracle) reset(props map[string]string) error {
	if _, err := o.send(map[string]any{"op": "config", "props": props}); err != nil {
		return err
	}
	_, err := o.send(map[string]any{"op": "reset"})
	return err
}

// apply runs op in the oracle and returns its raw answer.
func (o *Oracle) apply(op Op, ids topicIDs) ([]byte, error) {
	line := op.oracle(ids)
	line["op"] = op.Name()
	return o.send(line)
}

// Close stops the oracle.
func (o *Oracle) Close() error {
	_ = o.in.Close()
	err := o.cmd.Wait()
	if err != nil && strings.Contains(err.Error(), "signal: killed") {
		return nil
	}
	return err
}

// tailBuffer keeps the last max bytes written to it: the oracle's stderr,
// quoted when it fails.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
