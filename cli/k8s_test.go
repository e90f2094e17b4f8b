package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// renderJob fills deploy/k8s's placeholders as its README instructions do.
func renderJob(t *testing.T, file string, shards, seeds int, scenario string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "deploy", "k8s", file))
	require.NoError(t, err)
	out := strings.NewReplacer("{{SHARDS}}", strconv.Itoa(shards), "{{SEEDS}}", strconv.Itoa(seeds),
		"{{SCENARIO}}", scenario, "{{IMAGE}}", "registry.example.com/coordsim:test").Replace(string(data))
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			require.NotContains(t, line, "{{", "every placeholder is filled")
		}
	}
	return out
}

// job is the part of a batch/v1 Job the test reads.
type job struct {
	Kind string `yaml:"kind"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Parallelism    int    `yaml:"parallelism"`
		Template       struct {
			Spec struct {
				Containers []struct {
					Args         []string `yaml:"args"`
					VolumeMounts []struct {
						MountPath string `yaml:"mountPath"`
						SubPath   string `yaml:"subPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// TestIndexedJobCoversEverySeedOnce proves the Kubernetes manifest, rendered
// for N shards, runs N pods whose `sweep --shard` arguments (with
// $(JOB_COMPLETION_INDEX) as Kubernetes expands it) split the seeds so that
// every seed runs exactly once, each pod writing its own file on the shared
// volume, and that the merge job reads that directory.
func TestIndexedJobCoversEverySeedOnce(t *testing.T) {
	for _, n := range []int{1, 3, 8, 50} {
		const seeds = 1000
		var j job
		require.NoError(t, yaml.Unmarshal([]byte(renderJob(t, "sweep-job.yaml", n, seeds, "ci")), &j))
		require.Equal(t, "Job", j.Kind)
		require.Equal(t, "Indexed", j.Spec.CompletionMode)
		require.Equal(t, n, j.Spec.Completions)
		require.Equal(t, n, j.Spec.Parallelism)
		require.Len(t, j.Spec.Template.Spec.Containers, 1)
		c := j.Spec.Template.Spec.Containers[0]
		require.Equal(t, "sweep", c.Args[0])

		runs := map[uint64]int{}
		files := map[string]bool{}
		for index := range n {
			args := make([]string, len(c.Args))
			for i, a := range c.Args {
				args[i] = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", strconv.Itoa(index))
			}
			// The pod's flags, parsed by the sweep's own flag set.
			fs := newFlagSet("sweep", "", "", os.Stderr, os.Stderr)
			of := newApp().addOptionFlags(fs)
			seedsN := fs.Int("seeds", 100, "")
			start := fs.Uint64("start", 1, "")
			shard := fs.String("shard", "", "")
			resume := fs.String("resume", "", "")
			require.NoError(t, fs.Parse(args[1:]))
			assert.Equal(t, "ci", of.scenario)
			assert.Equal(t, seeds, *seedsN)
			part, parts, err := parseShard(*shard)
			require.NoError(t, err, "pod %d: --shard %q", index, *shard)
			for i := range *seedsN {
				if i%parts == part {
					runs[*start+uint64(i)]++
				}
			}
			require.True(t, strings.HasPrefix(*resume, "/results/ci/"), *resume)
			// --resume makes no directory: the results file's directory is a
			// subPath mount, which the kubelet creates.
			mounted := false
			for _, m := range c.VolumeMounts {
				mounted = mounted || m.MountPath == filepath.Dir(*resume) && m.SubPath != ""
			}
			assert.True(t, mounted, "pod %d: %s is a subPath mount", index, filepath.Dir(*resume))
			assert.False(t, files[*resume], "pod %d writes a file of its own", index)
			files[*resume] = true
		}
		require.Len(t, runs, seeds, "%d shards: every seed runs", n)
		for seed, k := range runs {
			require.Equal(t, 1, k, "%d shards: seed %d runs once", n, seed)
		}
	}
	var m job
	require.NoError(t, yaml.Unmarshal([]byte(renderJob(t, "merge-job.yaml", 8, 1000, "ci")), &m))
	assert.Equal(t, []string{"sweep", "--merge", "/results/ci"}, m.Spec.Template.Spec.Containers[0].Args)
}

// TestMergeReadsADirectory proves --merge of a directory merges the .jsonl
// files in it, as the merge job does with the results volume.
func TestMergeReadsADirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ci")
	// The sweep job's subPath mount makes the directory; --resume makes
	// only the file.
	require.NoError(t, os.Mkdir(dir, 0o755))
	for i, part := range []string{"0/2", "1/2"} {
		code, _, errs := runCLI(append([]string{"sweep", "--seeds", "2", "--shard", part, "--resume",
			filepath.Join(dir, "part-"+strconv.Itoa(i)+".jsonl")}, small...)...)
		require.Equal(t, exitOK, code, errs)
	}
	code, out, errs := runCLI("sweep", "--merge", dir)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "sweep summary: 2 seeds")
}
