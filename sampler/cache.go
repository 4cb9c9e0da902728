package sampler

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"
)

// describeVersion names the description code in cache entries. Bump it
// whenever Describe's output for a given tree changes; entries of another
// version are ignored (and replaced).
const describeVersion = "sampler-describe/1"

// maxCacheEntryBytes bounds one describe cache entry, read or written.
const maxCacheEntryBytes = 16 << 20

// racyWindow: a run with a file changed this close to its listing is not
// cached (see DiscoverOptions.HashCache); it covers the coarsest common
// mtime granularity (FAT's 2 s).
const racyWindow = 2 * time.Second

// cacheMagic starts every entry: "evalcal-describe <checksum>\n" then the
// JSON payload; the checksum is the hex SHA-256 of the payload.
const cacheMagic = "evalcal-describe "

// cacheEntry is one cached run description.
type cacheEntry struct {
	Version string `json:"version"`
	Build   string `json:"build"`
	// Dir is the run directory as given, Abs its absolute path.
	Dir       string `json:"dir"`
	Abs       string `json:"abs"`
	Signature string `json:"signature"`
	Run       Run    `json:"run"`
}

// describeCache keeps run descriptions under a directory, one file per
// run directory: <dir>/<hh>/<sha256 of the absolute path>. Safe for
// concurrent use, and for concurrent processes (entries are written to a
// temporary file and renamed).
type describeCache struct {
	dir   string
	build string
	// racy: a run with a file changed this close to its listing is not
	// stored (racyWindow; tests shorten it).
	racy time.Duration

	mu         sync.Mutex
	warn       []string
	corrupt    int
	writeFails int
}

// openDescribeCache opens the cache at dir; nil when dir is "". A
// directory that cannot be created gives a cache that only warns.
func openDescribeCache(dir string) *describeCache {
	if dir == "" {
		return nil
	}
	c := &describeCache{dir: dir, build: buildID(), racy: racyWindow}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		c.warn = append(c.warn, fmt.Sprintf("describe cache %s unusable, runs are described uncached: %v", dir, unwrapPath(err)))
		c.dir = ""
	}
	return c
}

// buildID identifies the binary's code where the build records it, so a
// rebuilt evalcal does not trust descriptions by older code even if
// describeVersion was not bumped.
func buildID() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	id := bi.Main.Path + "@" + bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
			id += " " + s.Key + "=" + s.Value
		}
	}
	return id
}

func absPath(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return filepath.Clean(dir)
	}
	return abs
}

func (c *describeCache) file(abs string) string {
	sum := sha256.Sum256([]byte(abs))
	h := hex.EncodeToString(sum[:])
	return filepath.Join(c.dir, h[:2], h)
}

// get returns the cached description of dir when its entry is for dir,
// this code and sig, and verifies.
func (c *describeCache) get(dir, sig string) (Run, bool) {
	if c.dir == "" {
		return Run{}, false
	}
	abs := absPath(dir)
	name := c.file(abs)
	b, err := readCacheFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return Run{}, false
	}
	if err != nil {
		c.noteCorrupt(name, err)
		return Run{}, false
	}
	payload, err := verifyEntry(b)
	if err != nil {
		c.noteCorrupt(name, err)
		return Run{}, false
	}
	var e cacheEntry
	if err := json.Unmarshal(payload, &e); err != nil {
		c.noteCorrupt(name, err)
		return Run{}, false
	}
	if e.Version != describeVersion || e.Build != c.build || e.Dir != dir || e.Abs != abs || e.Signature != sig {
		return Run{}, false // stale, not corrupt: replaced by put
	}
	r := e.Run
	normalizeRun(&r)
	return r, true
}

// put stores the description of dir; a failure is a warning.
func (c *describeCache) put(dir, sig string, r Run) {
	if c.dir == "" {
		return
	}
	abs := absPath(dir)
	payload, err := json.Marshal(cacheEntry{Version: describeVersion, Build: c.build, Dir: dir, Abs: abs, Signature: sig, Run: r})
	if err != nil {
		c.noteWriteFail(err)
		return
	}
	if len(payload) > maxCacheEntryBytes-128 {
		return // an enormous description is cheaper to recompute
	}
	sum := sha256.Sum256(payload)
	var buf bytes.Buffer
	buf.Grow(len(cacheMagic) + 65 + len(payload))
	buf.WriteString(cacheMagic + hex.EncodeToString(sum[:]) + "\n")
	buf.Write(payload)
	if err := writeFileAtomic(c.file(abs), buf.Bytes()); err != nil {
		c.noteWriteFail(err)
	}
}

// verifyEntry checks an entry's checksum and returns its payload.
func verifyEntry(b []byte) ([]byte, error) {
	head, payload, ok := bytes.Cut(b, []byte("\n"))
	sumHex, found := bytes.CutPrefix(head, []byte(cacheMagic))
	if !ok || !found {
		return nil, errors.New("not a describe cache entry")
	}
	sum := sha256.Sum256(payload)
	if string(sumHex) != hex.EncodeToString(sum[:]) {
		return nil, errors.New("checksum mismatch")
	}
	return payload, nil
}

// readCacheFile reads an entry: a regular file (never followed through
// a symlink, never a pipe) of at most maxCacheEntryBytes.
func readCacheFile(name string) ([]byte, error) {
	fi, err := os.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w (%s)", ErrNotRegular, fi.Mode().Type())
	}
	f, err := os.OpenFile(name, os.O_RDONLY|openNonBlocking, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	f, fi, err = checkOpened(f, name)
	if err != nil {
		return nil, err
	}
	b, whole, err := readLimited(context.Background(), f, fi.Size(), maxCacheEntryBytes, name)
	if err != nil {
		return nil, err
	}
	if !whole {
		return nil, fmt.Errorf("larger than %d bytes", maxCacheEntryBytes)
	}
	return b, nil
}

// writeFileAtomic writes data to name through a temporary file in the
// same directory and a rename, so readers see the old or the new entry.
func writeFileAtomic(name string, data []byte) error {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

func (c *describeCache) noteCorrupt(name string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.corrupt++
	if c.corrupt <= 3 {
		c.warn = append(c.warn, fmt.Sprintf("describe cache entry %s unusable (%v); the run was described again", name, unwrapPath(err)))
	}
}

func (c *describeCache) noteWriteFail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writeFails++
	if c.writeFails == 1 {
		c.warn = append(c.warn, fmt.Sprintf("describe cache %s: cannot write (%v); runs are not cached", c.dir, unwrapPath(err)))
	}
}

// warnings are the cache's warnings, with counts of those not listed.
func (c *describeCache) warnings() []string {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	out := append([]string(nil), c.warn...)
	if c.corrupt > 3 {
		out = append(out, fmt.Sprintf("describe cache: %d more unusable entries", c.corrupt-3))
	}
	if c.writeFails > 1 {
		out = append(out, fmt.Sprintf("describe cache: %d runs could not be stored", c.writeFails))
	}
	return out
}

// normalizeRun restores what a JSON round trip loses: the list fields a
// description always sets are empty lists, not nil.
func normalizeRun(r *Run) {
	for _, p := range []*[]string{&r.ServicesDeclared, &r.ServicesCompleted, &r.ServicesErrored, &r.ServicesSkipped,
		&r.BindingsPresent, &r.BindingsMissing, &r.ErrorFiles} {
		if *p == nil {
			*p = []string{}
		}
	}
	if len(r.Warnings) == 0 {
		r.Warnings = nil
	}
}
