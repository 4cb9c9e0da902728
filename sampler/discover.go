package sampler

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
)

// runDirNameRE is the OpenProse run directory name {YYYYMMDD}-{HHMMSS}-{rand6}.
var runDirNameRE = regexp.MustCompile(`^\d{8}-\d{6}-[0-9a-z]{6}$`)

// IsRunDir says whether dir is a run directory, and why: its name matches
// `YYYYMMDD-HHMMSS-xxxxxx` ("name"), or it holds a log (state.md or
// vm.log.md) beside a source or manifest ("contents"). The reason is ""
// when it is not a run directory.
func IsRunDir(dir string) (bool, string) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return false, ""
	}
	if runDirNameRE.MatchString(filepath.Base(filepath.Clean(dir))) {
		return true, "name"
	}
	if LogFile(dir) == "" {
		return false, ""
	}
	for _, group := range [][]string{sourceFiles, manifestFiles} {
		for _, n := range group {
			if fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(n))); err == nil && fi.Mode().IsRegular() {
				return true, "contents"
			}
		}
	}
	return false, ""
}

// Discover finds the run directories under paths and describes each. A
// path is a run directory itself (see IsRunDir) or a folder searched at
// any depth; a run directory is not searched further, `.git` folders are
// skipped and links are not followed. A run that Describe cannot read is
// returned invalid with the reason rather than failing the whole call.
// Runs are sorted by ID, then path; a directory reached through two paths
// is listed once. The error is non-nil when a path does not exist or is
// not a directory, or a folder cannot be walked.
func Discover(paths []string) ([]Run, error) {
	seen := map[string]bool{}
	var dirs []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("sampler: discover %s: %w", p, err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("sampler: discover %s: not a directory", p)
		}
		err = filepath.WalkDir(p, func(d string, e fs.DirEntry, err error) error {
			if err != nil {
				return fmt.Errorf("sampler: discover %s: %w", d, err)
			}
			if !e.IsDir() {
				return nil
			}
			if e.Name() == ".git" && d != p {
				return filepath.SkipDir
			}
			if ok, _ := IsRunDir(d); !ok {
				return nil
			}
			abs, aerr := filepath.Abs(d)
			if aerr != nil {
				abs = filepath.Clean(d)
			}
			if !seen[abs] {
				seen[abs] = true
				dirs = append(dirs, d)
			}
			return filepath.SkipDir
		})
		if err != nil {
			return nil, err
		}
	}
	runs := make([]Run, 0, len(dirs))
	for _, d := range dirs {
		r, err := Describe(d)
		if err != nil {
			r.Valid = false
			r.Invalid = err.Error()
		}
		runs = append(runs, r)
	}
	sort.SliceStable(runs, func(i, j int) bool {
		if runs[i].ID != runs[j].ID {
			return runs[i].ID < runs[j].ID
		}
		return runs[i].Path < runs[j].Path
	})
	return runs, nil
}
