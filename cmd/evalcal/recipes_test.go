package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalcal/evalcal/report/reportio"
	"gopkg.in/yaml.v3"
)

// The CI recipes of examples/ci (shown in the README's Scaling out) are
// run here as each platform would run them, for n = 3 shards, on a copy of
// the bundled corpus as runs/, with the built evalcal on PATH: the merged
// report must be byte-identical to one unsharded run of the same corpus
// with the same flags. A wrong command (a flag misspelt, a path that does
// not match between the shards and the merge) fails the test.
//
// What the test plays instead of the platform: steps that use an action
// (uses:) are not run; actions/checkout puts the corpus in the job's
// workspace, upload-artifact and download-artifact copy the files between
// the jobs' workspaces (by artifact name and pattern), and the others
// (setup-go, cache) are skipped. GitLab jobs get the corpus (the checkout)
// and the artifacts of the jobs they need. The Kubernetes pods share one
// directory, the volume. `go install` of evalcal is a stub that checks the
// module path and the pinned version (this one), since evalcal is already
// on PATH.
func TestCIRecipesMergeToOneUnshardedRun(t *testing.T) {
	skipShort(t)
	const n = 3
	p := newRecipePlayer(t)
	whole := p.workspace(t, true)
	if err := p.sh(whole, nil, "evalcal run --cache .evalcal-cache -o whole.yaml runs/"); err != nil {
		t.Fatalf("the unsharded run: %v", err)
	}
	want, err := os.ReadFile(filepath.Join(whole, "whole.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, file, source string
		play               func(*recipePlayer, *testing.T, string) (string, error)
	}{
		{"GitHub Actions", "github-actions.yml", "EVALCAL_SHARD", (*recipePlayer).github},
		{"GitLab CI", "gitlab-ci.yml", "GitLab CI_NODE_INDEX/CI_NODE_TOTAL", (*recipePlayer).gitlab},
		{"Kubernetes Indexed Job", "k8s-indexed-job.yaml", "Kubernetes JOB_COMPLETION_INDEX/EVALCAL_SHARD_TOTAL", (*recipePlayer).kubernetes},
	} {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(repoRoot(t), "examples", "ci", c.file))
			if err != nil {
				t.Fatal(err)
			}
			dir, err := c.play(p, t, string(data))
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			got, err := os.ReadFile(filepath.Join(dir, "report.yaml"))
			if err != nil {
				t.Fatalf("%s: the merge wrote no report.yaml: %v", c.name, err)
			}
			if !bytes.Equal(got, want) {
				os.WriteFile(filepath.Join(repoRoot(t), "examples", "ci", c.file+".got-report.yaml"), got, 0o644)
				t.Errorf("%s: the merged report differs from the unsharded run's (written to examples/ci/%s.got-report.yaml)", c.name, c.file)
			}
			p.checkShards(t, filepath.Join(dir, "shards"), n, c.source)
		})
	}
}

// recipePlayer runs recipe commands as a platform would.
type recipePlayer struct {
	bin    string   // the directory put first on PATH: evalcal and the go stub
	env    []string // the environment every command starts from
	corpus string
}

func newRecipePlayer(t *testing.T) *recipePlayer {
	t.Helper()
	bin := t.TempDir()
	if err := os.Symlink(buildEvalcal(t), filepath.Join(bin, "evalcal")); err != nil {
		t.Fatal(err)
	}
	stub := fmt.Sprintf(`#!/bin/sh
# evalcal is on PATH already: check what would be installed.
if [ "$*" != "install github.com/evalcal/evalcal/cmd/evalcal@v%s" ]; then
	echo "go stub: want go install github.com/evalcal/evalcal/cmd/evalcal@v%s, got: go $*" >&2
	exit 2
fi
`, version, version)
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	// A test run inside a CI job must not see the job's own shard or CI
	// variables: the recipe gets only what the platform it plays sets.
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "PATH", name == "CI", strings.HasPrefix(name, "EVALCAL_"), strings.HasPrefix(name, "CI_"),
			strings.HasPrefix(name, "GITHUB_"), strings.HasPrefix(name, "GITLAB_"), strings.HasPrefix(name, "CIRCLE_"),
			strings.HasPrefix(name, "BUILDKITE"), name == "JOB_COMPLETION_INDEX":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return &recipePlayer{bin: bin, env: env, corpus: filepath.Join(repoRoot(t), "testdata", "runs")}
}

// workspace is a new empty directory, holding the corpus as runs/ when
// checkout is true.
func (p *recipePlayer) workspace(t *testing.T, checkout bool) string {
	t.Helper()
	dir := t.TempDir()
	if checkout {
		if err := p.checkout(dir); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func (p *recipePlayer) checkout(dir string) error {
	return os.CopyFS(filepath.Join(dir, "runs"), os.DirFS(p.corpus))
}

// sh runs script with sh -e -c in dir (the platforms stop a script at
// its first failing command), with env added.
func (p *recipePlayer) sh(dir string, env []string, script string) error {
	return p.exec(dir, env, "sh", "-e", "-c", script)
}

// exec runs argv in dir with env added; the error holds its output.
func (p *recipePlayer) exec(dir string, env []string, argv ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(slices.Clone(p.env), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%q: %w\n%s", strings.Join(argv, " "), err, out.String())
	}
	return nil
}

// checkShards checks that dir holds the n shard reports, each recording
// the source the platform's variables give.
func (p *recipePlayer) checkShards(t *testing.T, dir string, n int, source string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	shards := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := reportio.ParseReport(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		shards[rep.Inputs.Shard] = true
		if rep.Inputs.ShardSource != source {
			t.Errorf("%s: shard_source %q, want %q", filepath.Base(f), rep.Inputs.ShardSource, source)
		}
	}
	for i := 1; i <= n; i++ {
		if s := fmt.Sprintf("%d/%d", i, n); !shards[s] {
			t.Errorf("no report of shard %s among %d in %s", s, len(files), dir)
		}
	}
}

// stringList is a YAML scalar or a sequence of scalars.
type stringList []string

func (l *stringList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*l = []string{n.Value}
		return nil
	}
	var s []string
	if err := n.Decode(&s); err != nil {
		return err
	}
	*l = s
	return nil
}

// GitHub Actions: the parts of a workflow the test plays.
type ghWorkflow struct {
	Jobs map[string]ghJob `yaml:"jobs"`
}

type ghJob struct {
	Needs    stringList `yaml:"needs"`
	Strategy struct {
		Matrix map[string][]string `yaml:"matrix"`
	} `yaml:"strategy"`
	Env   map[string]string `yaml:"env"`
	Steps []ghStep          `yaml:"steps"`
}

type ghStep struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	Env  map[string]string `yaml:"env"`
	With map[string]string `yaml:"with"`
}

// ghMatrixRef is the ${{ matrix.KEY }} expression GitHub expands before
// the shell sees the line.
var ghMatrixRef = regexp.MustCompile(`\$\{\{\s*matrix\.([A-Za-z0-9_-]+)\s*\}\}`)

// github runs a workflow's jobs in the order of their needs, each
// matrix entry in its own workspace at once, and returns the workspace of
// the last job.
func (p *recipePlayer) github(t *testing.T, data string) (string, error) {
	var wf ghWorkflow
	if err := yaml.Unmarshal([]byte(data), &wf); err != nil {
		return "", err
	}
	var artifacts sync.Map // name -> map[relative path]content
	done := map[string]bool{}
	last := ""
	for len(done) < len(wf.Jobs) {
		var ready []string
		for name, j := range wf.Jobs {
			if !done[name] && !slices.ContainsFunc(j.Needs, func(n string) bool { return !done[n] }) {
				ready = append(ready, name)
			}
		}
		if len(ready) == 0 {
			return "", errors.New("jobs with needs that are never met")
		}
		slices.Sort(ready)
		for _, name := range ready {
			j := wf.Jobs[name]
			var matrix []map[string]string
			switch len(j.Strategy.Matrix) {
			case 0:
				matrix = []map[string]string{{}}
			case 1:
				for key, values := range j.Strategy.Matrix {
					if key == "shard" && len(values) != 3 {
						return "", fmt.Errorf("job %s: matrix.shard has %d entries, want 3", name, len(values))
					}
					for _, v := range values {
						matrix = append(matrix, map[string]string{key: v})
					}
				}
			default:
				return "", fmt.Errorf("job %s: the test plays a matrix of one key", name)
			}
			errs := make([]error, len(matrix))
			dirs := make([]string, len(matrix))
			var wg sync.WaitGroup
			for k, m := range matrix {
				dirs[k] = t.TempDir()
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[k] = p.githubJob(name, j, m, dirs[k], &artifacts)
				}()
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				return "", err
			}
			done[name], last = true, dirs[len(dirs)-1]
		}
	}
	return last, nil
}

// githubJob runs one job (one matrix entry) in dir.
func (p *recipePlayer) githubJob(name string, j ghJob, matrix map[string]string, dir string, artifacts *sync.Map) error {
	expand := func(s string) (string, error) {
		var missing string
		s = ghMatrixRef.ReplaceAllStringFunc(s, func(ref string) string {
			key := ghMatrixRef.FindStringSubmatch(ref)[1]
			v, ok := matrix[key]
			if !ok {
				missing = ref
			}
			return v
		})
		switch {
		case missing != "":
			return "", fmt.Errorf("%s is not in the matrix", missing)
		case strings.Contains(s, "${{"):
			return "", fmt.Errorf("%q: the test expands matrix values only", s)
		}
		return s, nil
	}
	summary := filepath.Join(filepath.Dir(dir), filepath.Base(dir)+"-step-summary.md")
	base := []string{"CI=true", "GITHUB_ACTIONS=true", "GITHUB_WORKSPACE=" + dir, "GITHUB_STEP_SUMMARY=" + summary}
	for k, v := range j.Env {
		v, err := expand(v)
		if err != nil {
			return fmt.Errorf("job %s env %s: %w", name, k, err)
		}
		base = append(base, k+"="+v)
	}
	for i, s := range j.Steps {
		where := fmt.Sprintf("job %s %v step %d", name, matrix, i+1)
		action, _, _ := strings.Cut(s.Uses, "@")
		with := map[string]string{}
		if action == "actions/upload-artifact" || action == "actions/download-artifact" {
			for k, v := range s.With {
				v, err := expand(v)
				if err != nil {
					return fmt.Errorf("%s: %w", where, err)
				}
				with[k] = v
			}
		}
		switch {
		case action == "actions/checkout":
			if err := p.checkout(dir); err != nil {
				return err
			}
		case action == "actions/upload-artifact":
			if err := uploadArtifact(dir, with, artifacts); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
		case action == "actions/download-artifact":
			if err := downloadArtifact(dir, with, artifacts); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
		case s.Uses != "":
			// setup-go, cache: nothing the test needs to play.
		case s.Run != "":
			script, err := expand(s.Run)
			if err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
			env := slices.Clone(base)
			for k, v := range s.Env {
				v, err := expand(v)
				if err != nil {
					return fmt.Errorf("%s env %s: %w", where, k, err)
				}
				env = append(env, k+"="+v)
			}
			if err := p.sh(dir, env, script); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
		}
	}
	if name == "merge" {
		data, err := os.ReadFile(summary)
		if err != nil || !bytes.Contains(data, []byte("agreement.lower")) {
			return fmt.Errorf("job %s: the step summary has no gate (%v):\n%s", name, err, data)
		}
	}
	return nil
}

// uploadArtifact plays actions/upload-artifact@v4 for one path: a file is
// stored under its base name, a directory's files relative to it. Names
// are unique in a workflow run (v4 refuses a second upload of a name).
func uploadArtifact(dir string, with map[string]string, artifacts *sync.Map) error {
	name, p := with["name"], with["path"]
	if name == "" || p == "" || strings.ContainsAny(p, "\n*") {
		return fmt.Errorf("upload-artifact: name %q, path %q: the test plays one named path", name, p)
	}
	files := map[string][]byte{}
	root := filepath.Join(dir, p)
	err := filepath.WalkDir(root, func(f string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, f)
		if rel == "." {
			rel = filepath.Base(f)
		}
		if err == nil {
			files[rel], err = os.ReadFile(f)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		return fmt.Errorf("upload-artifact %s: no files at %s (%v)", name, p, err)
	}
	if _, dup := artifacts.LoadOrStore(name, files); dup {
		return fmt.Errorf("upload-artifact: artifact %s uploaded twice", name)
	}
	return nil
}

// downloadArtifact plays actions/download-artifact@v4: the artifacts
// named, or matching pattern, into path (each in path/NAME unless
// merge-multiple, or unless one was named).
func downloadArtifact(dir string, with map[string]string, artifacts *sync.Map) error {
	dest := filepath.Join(dir, with["path"])
	n := 0
	var err error
	artifacts.Range(func(k, v any) bool {
		name := k.(string)
		match := name == with["name"]
		if with["name"] == "" {
			match, _ = path.Match(with["pattern"], name)
		}
		if !match {
			return true
		}
		n++
		to := dest
		if with["name"] == "" && with["merge-multiple"] != "true" {
			to = filepath.Join(dest, name)
		}
		for rel, data := range v.(map[string][]byte) {
			f := filepath.Join(to, rel)
			if err = os.MkdirAll(filepath.Dir(f), 0o755); err == nil {
				err = os.WriteFile(f, data, 0o644)
			}
			if err != nil {
				return false
			}
		}
		return true
	})
	if err == nil && n == 0 {
		err = fmt.Errorf("download-artifact: no artifact matches name %q, pattern %q", with["name"], with["pattern"])
	}
	return err
}

// GitLab CI: the parts of a pipeline the test plays.
type glJob struct {
	Stage        string     `yaml:"stage"`
	Parallel     int        `yaml:"parallel"`
	Needs        stringList `yaml:"needs"`
	BeforeScript stringList `yaml:"before_script"`
	Script       stringList `yaml:"script"`
	Artifacts    struct {
		Paths []string `yaml:"paths"`
	} `yaml:"artifacts"`
}

// gitlabKeywords are the top-level keys of .gitlab-ci.yml that are not
// jobs.
var gitlabKeywords = map[string]bool{"stages": true, "default": true, "variables": true, "workflow": true,
	"include": true, "image": true, "services": true, "cache": true, "before_script": true, "after_script": true}

// gitlab runs a pipeline's jobs stage by stage, the instances of a
// parallel job at once, each in its own workspace holding the corpus and
// the artifacts of the jobs it needs (of every earlier stage without
// needs:), and returns the workspace of the last job.
func (p *recipePlayer) gitlab(t *testing.T, data string) (string, error) {
	var top map[string]yaml.Node
	if err := yaml.Unmarshal([]byte(data), &top); err != nil {
		return "", err
	}
	var stages []string
	var def glJob
	jobs := map[string]glJob{}
	for key, node := range top {
		var err error
		switch {
		case key == "stages":
			err = node.Decode(&stages)
		case key == "default":
			err = node.Decode(&def)
		case gitlabKeywords[key]:
			return "", fmt.Errorf("top-level %s: the test does not play it", key)
		case strings.HasPrefix(key, "."):
		default:
			var j glJob
			if err = node.Decode(&j); err == nil {
				jobs[key] = j
			}
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", key, err)
		}
	}
	// artifacts[job] are the workspaces of its instances and its paths.
	type produced struct {
		dirs  []string
		paths []string
	}
	artifacts := map[string]produced{}
	last := ""
	for si, stage := range stages {
		var names []string
		for name, j := range jobs {
			if j.Stage == stage {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		for _, name := range names {
			j := jobs[name]
			needs := j.Needs
			if needs == nil {
				for other, o := range jobs {
					if slices.Index(stages, o.Stage) < si {
						needs = append(needs, other)
					}
				}
			}
			script := j.BeforeScript
			if script == nil {
				script = def.BeforeScript
			}
			script = append(slices.Clone(script), j.Script...)
			count := max(j.Parallel, 1)
			if j.Parallel > 0 && j.Parallel != 3 {
				return "", fmt.Errorf("job %s: parallel: %d, want 3", name, j.Parallel)
			}
			dirs := make([]string, count)
			errs := make([]error, count)
			var wg sync.WaitGroup
			for k := range count {
				dirs[k] = t.TempDir()
				wg.Add(1)
				go func() {
					defer wg.Done()
					dir := dirs[k]
					if err := p.checkout(dir); err != nil {
						errs[k] = err
						return
					}
					for _, need := range needs {
						a, ok := artifacts[need]
						if !ok {
							errs[k] = fmt.Errorf("job %s needs %s, which has not run", name, need)
							return
						}
						for _, from := range a.dirs {
							if err := copyArtifacts(from, dir, a.paths); err != nil {
								errs[k] = fmt.Errorf("job %s: artifacts of %s: %w", name, need, err)
								return
							}
						}
					}
					// GitLab sets CI_NODE_TOTAL (1 without parallel:) and,
					// with parallel:, CI_NODE_INDEX from 1.
					env := []string{"CI=true", "GITLAB_CI=true", "CI_JOB_NAME=" + name, "CI_NODE_TOTAL=" + strconv.Itoa(count)}
					if j.Parallel > 0 {
						env = append(env, "CI_NODE_INDEX="+strconv.Itoa(k+1))
					}
					if err := p.sh(dir, env, strings.Join(script, "\n")); err != nil {
						errs[k] = fmt.Errorf("job %s %d/%d: %w", name, k+1, count, err)
					}
				}()
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				return "", err
			}
			artifacts[name] = produced{dirs: dirs, paths: j.Artifacts.Paths}
			last = dirs[len(dirs)-1]
		}
	}
	if _, err := os.Stat(filepath.Join(last, "summary.md")); err != nil {
		return "", fmt.Errorf("the merge job wrote no gate summary: %w", err)
	}
	return last, nil
}

// copyArtifacts copies the artifact paths (files, directories or globs)
// of the workspace from into the workspace to, at the same places; a path
// that matches nothing is an error.
func copyArtifacts(from, to string, paths []string) error {
	for _, p := range paths {
		matches, err := filepath.Glob(filepath.Join(from, strings.TrimSuffix(p, "/")))
		if err != nil || len(matches) == 0 {
			return fmt.Errorf("artifact path %s matches nothing in the job (%v)", p, err)
		}
		for _, m := range matches {
			err := filepath.WalkDir(m, func(f string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				rel, err := filepath.Rel(from, f)
				if err != nil {
					return err
				}
				return copyFile(f, filepath.Join(to, rel))
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from) // artifacts here are small reports
	if err == nil {
		err = os.MkdirAll(filepath.Dir(to), 0o755)
	}
	if err == nil {
		err = os.WriteFile(to, data, 0o644)
	}
	return err
}

// Kubernetes: the parts of the manifests the test plays.
type k8sObject struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Parallelism    int    `yaml:"parallelism"`
		Template       struct {
			Spec struct {
				Containers []k8sContainer `yaml:"containers"`
				Volumes    []struct {
					Name string `yaml:"name"`
					PVC  *struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type k8sContainer struct {
	WorkingDir string   `yaml:"workingDir"`
	Command    []string `yaml:"command"`
	Args       []string `yaml:"args"`
	Env        []struct {
		Name  string `yaml:"name"`
		Value string `yaml:"value"`
	} `yaml:"env"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

// kubernetes runs the Indexed Job's pods at once (JOB_COMPLETION_INDEX 0
// to completions-1), then the fan-in Job, all in one directory: the
// volume every pod mounts as its working directory, which holds the
// corpus. It returns that directory.
func (p *recipePlayer) kubernetes(t *testing.T, data string) (string, error) {
	var indexed, fanIn []k8sObject
	dec := yaml.NewDecoder(strings.NewReader(data))
	for {
		var o k8sObject
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", err
		}
		switch {
		case o.Kind == "Job" && o.Spec.CompletionMode == "Indexed":
			indexed = append(indexed, o)
		case o.Kind == "Job":
			fanIn = append(fanIn, o)
		}
	}
	if len(indexed) != 1 || len(fanIn) != 1 {
		return "", fmt.Errorf("%d Indexed Jobs and %d other Jobs, want one of each", len(indexed), len(fanIn))
	}
	shards := indexed[0]
	if shards.Spec.Completions != 3 || shards.Spec.Parallelism != 3 {
		return "", fmt.Errorf("completions %d, parallelism %d: want 3 and 3", shards.Spec.Completions, shards.Spec.Parallelism)
	}
	volume := t.TempDir()
	if err := p.checkout(volume); err != nil {
		return "", err
	}
	shardPod, err := podOf(shards)
	if err != nil {
		return "", err
	}
	fanInPod, err := podOf(fanIn[0])
	if err != nil {
		return "", err
	}
	if shardPod.claim != fanInPod.claim {
		return "", fmt.Errorf("the Jobs mount claims %s and %s: not one shared volume", shardPod.claim, fanInPod.claim)
	}
	errs := make([]error, shards.Spec.Completions)
	var wg sync.WaitGroup
	for i := range shards.Spec.Completions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env := append(slices.Clone(shardPod.env), "JOB_COMPLETION_INDEX="+strconv.Itoa(i))
			errs[i] = p.exec(volume, env, shardPod.argv...)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return "", err
	}
	if err := p.exec(volume, fanInPod.env, fanInPod.argv...); err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(volume, "summary.md")); err != nil {
		return "", fmt.Errorf("the fan-in wrote no gate summary: %w", err)
	}
	return volume, nil
}

// k8sPod is what the test runs of a Job's pod: its command, the
// environment its manifest sets, and the volume claim its working
// directory is on.
type k8sPod struct {
	argv, env []string
	claim     string
}

// podOf reads a Job's pod. Its one container's working directory must be
// a mounted volume claim: the commands' relative paths (runs/, the cache,
// shards/) are on it.
func podOf(job k8sObject) (k8sPod, error) {
	spec := job.Spec.Template.Spec
	if len(spec.Containers) != 1 {
		return k8sPod{}, fmt.Errorf("job %s: %d containers, want 1", job.Metadata.Name, len(spec.Containers))
	}
	c := spec.Containers[0]
	var pod k8sPod
	for _, m := range c.VolumeMounts {
		for _, v := range spec.Volumes {
			if m.Name == v.Name && m.MountPath == c.WorkingDir && v.PVC != nil {
				pod.claim = v.PVC.ClaimName
			}
		}
	}
	if pod.claim == "" {
		return pod, fmt.Errorf("job %s: the working directory %q is not a mounted volume claim", job.Metadata.Name, c.WorkingDir)
	}
	pod.argv = append(slices.Clone(c.Command), c.Args...)
	if len(pod.argv) == 0 || strings.Contains(strings.Join(pod.argv, " "), "$(") {
		return pod, fmt.Errorf("job %s: command %q: the test plays a command without $(VAR) expansion", job.Metadata.Name, pod.argv)
	}
	for _, e := range c.Env {
		pod.env = append(pod.env, e.Name+"="+e.Value)
	}
	return pod, nil
}

// The README shows the essential lines of each recipe: every evalcal
// command, kubectl line and shard variable it shows under Scaling out is
// in one of the files, so the excerpts cannot drift from what is tested.
func TestReadmeRecipeExcerptsAreInTheFiles(t *testing.T) {
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "\n## Scaling out\n")
	section, _, _ = strings.Cut(section, "\n## ")
	var files string
	for _, f := range []string{"github-actions.yml", "gitlab-ci.yml", "k8s-indexed-job.yaml"} {
		data, err := os.ReadFile(filepath.Join(root, "examples", "ci", f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(section, "(examples/ci/"+f+")") {
			t.Errorf("the README's Scaling out does not link examples/ci/%s", f)
		}
		files += string(data)
	}
	checked := 0
	inBlock := false
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "```") {
			inBlock = !inBlock
			continue
		}
		l := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "- run:"))
		l = strings.TrimSpace(strings.TrimPrefix(l, "- "))
		if !inBlock || !(strings.HasPrefix(l, "evalcal ") || strings.HasPrefix(l, "kubectl ") || strings.Contains(l, "EVALCAL_SHARD")) {
			continue
		}
		checked++
		if !strings.Contains(files, l) {
			t.Errorf("README line %q is in no recipe file", l)
		}
	}
	if checked < 8 {
		t.Errorf("checked %d README recipe lines, want the recipes' commands", checked)
	}
}
