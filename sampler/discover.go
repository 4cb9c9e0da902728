package sampler

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/evalcal/evalcal/inspection"
	"golang.org/x/sync/errgroup"
)

// runDirNameRE is the OpenProse run directory name {YYYYMMDD}-{HHMMSS}-{rand6}.
var runDirNameRE = regexp.MustCompile(`^\d{8}-\d{6}-[0-9a-z]{6}$`)

// ErrDuplicateRunID: two different run directories have the same name,
// hence the same run id. Run ids key the inspection cache, shards and
// merged reports, so they must be unique; DiscoverContext and Select
// reject duplicates, naming both paths, rather than pick one.
var ErrDuplicateRunID = errors.New("duplicate run id")

// IsRunDir says whether dir is a run directory, and why: its name matches
// `YYYYMMDD-HHMMSS-xxxxxx` ("name"), or it holds a log (state.md or
// vm.log.md) beside a source or manifest ("contents"). The reason is ""
// when it is not a run directory. Only Stat is used: nothing is opened.
func IsRunDir(dir string) (bool, string) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return false, ""
	}
	return isRunDir(dir)
}

// isRunDir is IsRunDir for a known directory.
func isRunDir(dir string) (bool, string) {
	if runDirNameRE.MatchString(filepath.Base(filepath.Clean(dir))) {
		return true, "name"
	}
	if !hasRegular(dir, logFiles) {
		return false, ""
	}
	if hasRegular(dir, sourceFiles) || hasRegular(dir, manifestFiles) {
		return true, "contents"
	}
	return false, ""
}

func hasRegular(dir string, names []string) bool {
	for _, n := range names {
		if fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(n))); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// DiscoverOptions configure DiscoverContext.
type DiscoverOptions struct {
	// Jobs bounds how many runs are described (walked, hashed, parsed)
	// at once; 0 means runtime.GOMAXPROCS(0).
	Jobs int
	// HashCache is a directory (the caller's cache dir, e.g. the
	// inspection cache's) where each run's description, content hash
	// included, is kept between calls; "" keeps none.
	//
	// Rule, as build tools do it: a run is described again only when the
	// stat signature of its tree changed, that is any entry's relative
	// path, type, mode, size, mtime, ctime, inode or device (Linux; path,
	// mode, size and mtime elsewhere) or link target, or an entry was
	// added or removed. Otherwise no file of the run is opened: the run
	// costs one directory listing and one cache read. An entry is only
	// trusted when it was written for the same directory (as given and
	// absolute), by the same description code, and its checksum verifies;
	// a corrupt entry is recomputed with a warning. A run is not stored
	// while any of its files changed within the last 2 s of its
	// listing (a "racily clean" file, as git calls it).
	//
	// Failure modes: an edit that keeps a file's size, mtime, ctime and
	// inode goes unseen; ctime cannot be set by users, so that needs a
	// filesystem with coarse timestamps and an edit in the same tick as
	// the previous one beyond the 2 s window (the window covers FAT's 2 s
	// mtime), or, where ctime and inode are missing (outside Linux), a
	// tool that restores mtime after editing. Clock skew on a network
	// filesystem (server clock behind the client by more than 2 s) can
	// defeat the racy-file window. Filesystems without stable inodes
	// (some FUSE and network mounts, overlayfs copy-up) change the
	// signature between calls: those runs are simply re-described each
	// time, never wrongly reused. Entries of runs that were deleted stay
	// until the directory is removed.
	HashCache string

	// racy replaces racyWindow when non-zero; negative stores every run
	// (tests write runs and read them back within the window).
	racy time.Duration
}

// Discovery is what DiscoverContext found.
type Discovery struct {
	// Runs are sorted by ID; IDs are unique.
	Runs []inspection.Run
	// Described counts the runs read and hashed; Cached the runs whose
	// description came unchanged from DiscoverOptions.HashCache.
	Described, Cached int
	// Warnings are problems with the hash cache (unwritable, a corrupt
	// entry recomputed). They never change Runs.
	Warnings []string
}

// Discover is DiscoverContext without a deadline or a cache; it returns
// the runs only.
func Discover(paths []string) ([]inspection.Run, error) {
	d, err := DiscoverContext(context.Background(), paths, DiscoverOptions{})
	return d.Runs, err
}

// DiscoverContext finds the run directories under paths and describes
// each (DescribeContext). A path is a run directory itself (see
// IsRunDir) or a folder searched at any depth; a symlink given as a path
// is followed, links met while searching are not; a run directory is not
// searched further and `.git` folders are skipped. A directory reached
// through two paths is described once. Discovery and description
// overlap: one goroutine walks, opts.Jobs describe.
//
// A run that cannot be described is returned invalid with the reason
// rather than failing the call. Runs are sorted by ID. The error is
// non-nil when a path does not exist or is not a directory, a folder
// cannot be listed, two directories have the same run id (wrapping
// ErrDuplicateRunID and naming both), or ctx is done (the work stops
// within one directory listing or one 1 MiB read of ctx's end).
func DiscoverContext(ctx context.Context, paths []string, opts DiscoverOptions) (Discovery, error) {
	var out Discovery
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return out, fmt.Errorf("sampler: discover %s: %w", p, unwrapPath(err))
		}
		if !fi.IsDir() {
			return out, fmt.Errorf("sampler: discover %s: not a directory", p)
		}
	}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	cache := openDescribeCache(opts.HashCache)
	if cache != nil && opts.racy != 0 {
		cache.racy = opts.racy
	}

	g, gctx := errgroup.WithContext(ctx)
	dirs := make(chan string, 4*jobs)
	g.Go(func() error {
		defer close(dirs)
		s := searcher{ctx: gctx, out: dirs, seen: map[any]bool{}}
		for _, p := range paths {
			if err := s.search(p); err != nil {
				return err
			}
		}
		return nil
	})
	var mu sync.Mutex
	for range jobs {
		g.Go(func() error {
			for dir := range dirs {
				r, cached, err := describeCached(gctx, dir, cache)
				if err != nil {
					if cerr := gctx.Err(); cerr != nil {
						return cerr
					}
					r.Valid = false
					r.Invalid = err.Error()
				}
				mu.Lock()
				out.Runs = append(out.Runs, r)
				if cached {
					out.Cached++
				} else {
					out.Described++
				}
				mu.Unlock()
			}
			return nil
		})
	}
	err := g.Wait()
	if err == nil {
		err = ctx.Err() // a cancellation the workers did not see
	}
	out.Warnings = cache.warnings()
	if err != nil {
		out.Runs = nil
		return out, err
	}
	sortRuns(out.Runs)
	if err := duplicateIDs(out.Runs); err != nil {
		return out, err
	}
	return out, nil
}

// duplicateIDs names every run id used by more than one directory of the
// ID-sorted runs.
func duplicateIDs(runs []inspection.Run) error {
	var dups []string
	for i := 1; i < len(runs); i++ {
		if runs[i].ID == runs[i-1].ID {
			dups = append(dups, fmt.Sprintf("%s at %s and %s", runs[i].ID, displayPath(runs[i-1]), displayPath(runs[i])))
		}
	}
	switch {
	case len(dups) == 0:
		return nil
	case len(dups) > 5:
		dups = append(dups[:5], fmt.Sprintf("and %d more", len(dups)-5))
	}
	return fmt.Errorf("sampler: %w: %s; run ids must be unique: pass only one copy of each run", ErrDuplicateRunID, strings.Join(dups, "; "))
}

func displayPath(r inspection.Run) string {
	if r.Path == "" {
		return "(saved inspections)"
	}
	return r.Path
}

// searcher walks the given paths for run directories.
type searcher struct {
	ctx  context.Context
	out  chan<- string
	seen map[any]bool
}

// search looks at the directory dir: a run directory is sent once,
// anything else is searched. A path as given reaches here after Stat, so
// a symlink to a directory is followed at the top (listDir opens it).
func (s *searcher) search(dir string) error {
	if err := s.ctx.Err(); err != nil {
		return err
	}
	if ok, _ := isRunDir(dir); ok {
		id := dirIdentity(dir)
		if s.seen[id] {
			return nil
		}
		s.seen[id] = true
		select {
		case s.out <- dir:
			return nil
		case <-s.ctx.Done():
			return s.ctx.Err()
		}
	}
	ents, err := listDir(dir)
	if err != nil {
		return fmt.Errorf("sampler: discover %s: %w", dir, err)
	}
	for _, e := range ents {
		// DirEntry types come from the listing: a symlink is not a
		// directory here, so links met while searching are not followed.
		if !e.IsDir() || e.Name() == ".git" {
			continue
		}
		if err := s.search(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// dirIdentity is what makes two paths the same directory: device and
// inode where the platform gives them, else the absolute path.
func dirIdentity(dir string) any {
	if fi, err := os.Stat(dir); err == nil {
		if dev, ino, _, ok := fileIdentity(fi); ok {
			return [2]uint64{dev, ino}
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return filepath.Clean(dir)
	}
	return abs
}

// listDir lists a directory, sorted by name; it is opened non-blocking
// and checked with fstat, so a pipe swapped in cannot block.
func listDir(dir string) ([]os.DirEntry, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|openNonBlocking, 0)
	if err != nil {
		return nil, unwrapPath(err)
	}
	ents, err := readOpenDir(f)
	if err != nil {
		return nil, err
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return ents, nil
}

// describeCached describes dir, from the cache when nothing in its tree
// changed (see describeCache.get); cached says so.
func describeCached(ctx context.Context, dir string, cache *describeCache) (run inspection.Run, cached bool, err error) {
	if cache != nil {
		if r, ok := cache.get(dir); ok {
			return r, true, nil
		}
	}
	d, err := OpenRunDir(dir)
	if err != nil {
		return newRun(dir), false, fmt.Errorf("sampler: describe %s: %w", dir, errors.Unwrap(err))
	}
	defer d.Close()
	listed := time.Now()
	root, err := d.root.Stat(".")
	if err != nil {
		return newRun(dir), false, fmt.Errorf("sampler: describe %s: %w", dir, unwrapPath(err))
	}
	entries, err := walkTree(ctx, d)
	if err != nil {
		return newRun(dir), false, err
	}
	run, err = describeTree(ctx, d, entries)
	if err != nil {
		return run, false, err
	}
	if cache != nil {
		_, _, rootCtime, _ := fileIdentity(root)
		newest := max(newestTime(entries), root.ModTime().UnixNano(), rootCtime)
		if cache.racy < 0 || newest < listed.Add(-cache.racy).UnixNano() {
			cache.put(dir, root, entries, run)
		}
	}
	return run, false, nil
}
