package sampler

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/internal/atomicfile"
)

// describeVersion names the description code in cache entries. Bump it
// whenever Describe's output for a given tree changes; entries of another
// version are ignored (and replaced).
const describeVersion = "sampler-describe/3"

// maxCacheEntryBytes bounds one describe cache entry, read or written.
const maxCacheEntryBytes = 16 << 20

// racyWindow: a run with a file changed this close to its listing is not
// cached (see DiscoverOptions.HashCache); it covers the coarsest common
// mtime granularity (FAT's 2 s).
const racyWindow = 2 * time.Second

// cacheMagic starts every entry: "evalcal-describe <checksum>\n" then the
// JSON payload; the checksum is the hex SHA-256 of the payload.
const cacheMagic = "evalcal-describe "

// statRecord is what the cache keys one tree entry on.
type statRecord struct {
	Rel          string
	Mode         uint32
	Size         int64
	Mtime, Ctime int64
	Dev, Ino     uint64
}

func recordOf(rel string, fi fs.FileInfo) statRecord {
	r := statRecord{Rel: rel, Mode: uint32(fi.Mode()), Size: fi.Size(), Mtime: fi.ModTime().UnixNano()}
	r.Dev, r.Ino, r.Ctime, _ = fileIdentity(fi)
	if t := fi.Mode().Type(); t != 0 && t != fs.ModeSymlink {
		r.Size = 0 // as walkTree records directories and special files
	}
	return r
}

func recordOfEntry(e treeEntry) statRecord {
	return statRecord{Rel: e.rel, Mode: uint32(e.mode), Size: e.size, Mtime: e.mtime, Ctime: e.ctime, Dev: e.dev, Ino: e.ino}
}

// cacheHeader says whom an entry is for. An entry's payload is the
// header as JSON on one line, then one line per stat record (the run
// directory as ".", then every entry of its tree, sorted by path, so a
// directory comes before what it holds), an empty line, and the Run as
// JSON. Records are text, not JSON, because they are read for every run
// of every rerun.
type cacheHeader struct {
	Version string `json:"version"`
	Build   string `json:"build"`
	// Dir is the run directory as given, Abs its absolute path.
	Dir string `json:"dir"`
	Abs string `json:"abs"`
}

// appendRecord writes r as "mode size mtime ctime dev ino path\n", the
// path quoted (a file name may hold a newline).
func appendRecord(b []byte, r statRecord) []byte {
	b = strconv.AppendUint(b, uint64(r.Mode), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, r.Size, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, r.Mtime, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, r.Ctime, 10)
	b = append(b, ' ')
	b = strconv.AppendUint(b, r.Dev, 10)
	b = append(b, ' ')
	b = strconv.AppendUint(b, r.Ino, 10)
	b = append(b, ' ')
	b = strconv.AppendQuote(b, r.Rel)
	return append(b, '\n')
}

// parseRecord reads one appendRecord line (without its newline).
func parseRecord(line string) (statRecord, error) {
	var r statRecord
	var nums [6]string
	rest := line
	for i := range nums {
		var ok bool
		if nums[i], rest, ok = strings.Cut(rest, " "); !ok {
			return r, fmt.Errorf("bad stat record %q", clip(line))
		}
	}
	mode, err1 := strconv.ParseUint(nums[0], 10, 32)
	size, err2 := strconv.ParseInt(nums[1], 10, 64)
	mtime, err3 := strconv.ParseInt(nums[2], 10, 64)
	ctime, err4 := strconv.ParseInt(nums[3], 10, 64)
	dev, err5 := strconv.ParseUint(nums[4], 10, 64)
	ino, err6 := strconv.ParseUint(nums[5], 10, 64)
	rel, err7 := strconv.Unquote(rest)
	if err := errors.Join(err1, err2, err3, err4, err5, err6, err7); err != nil {
		return r, fmt.Errorf("bad stat record %q: %w", clip(line), err)
	}
	return statRecord{Rel: rel, Mode: uint32(mode), Size: size, Mtime: mtime, Ctime: ctime, Dev: dev, Ino: ino}, nil
}

// describeCache keeps run descriptions under a directory, one file per
// run directory: <dir>/<hh>/<sha256 of the absolute path>. Safe for
// concurrent use, and for concurrent processes (entries are written to a
// temporary file and renamed).
type describeCache struct {
	dir   string
	build string
	cwd   string
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
	c.cwd, _ = os.Getwd()
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

// abs is dir made absolute against the working directory read once.
func (c *describeCache) abs(dir string) string {
	if filepath.IsAbs(dir) || c.cwd == "" {
		return filepath.Clean(dir)
	}
	return filepath.Join(c.cwd, dir)
}

func (c *describeCache) file(abs string) string {
	sum := sha256.Sum256([]byte(abs))
	h := hex.EncodeToString(sum[:])
	return filepath.Join(c.dir, h[:2], h)
}

// get returns the cached description of dir when its entry is for dir
// and this code, verifies, and every stat record still matches: the run
// directory is Stat'ed and each recorded entry Lstat'ed, parents first,
// stopping at the first difference. An entry added or removed changes
// its directory's mtime, so nothing is listed and no file is opened.
func (c *describeCache) get(dir string) (inspection.Run, bool) {
	if c.dir == "" {
		return inspection.Run{}, false
	}
	abs := c.abs(dir)
	name := c.file(abs)
	b, err := readCacheFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return inspection.Run{}, false
	}
	if err != nil {
		c.noteCorrupt(name, err)
		return inspection.Run{}, false
	}
	payload, err := verifyEntry(b)
	if err != nil {
		c.noteCorrupt(name, err)
		return inspection.Run{}, false
	}
	headLine, rest, _ := strings.Cut(string(payload), "\n")
	if !strings.HasPrefix(headLine, string(appendField(nil, describeVersion))) {
		// Another version's entry (sampler-describe/1 wrote a JSON header):
		// stale, not corrupt, whatever its encoding.
		return inspection.Run{}, false
	}
	var h cacheHeader
	if err := h.decode(headLine); err != nil {
		c.noteCorrupt(name, err)
		return inspection.Run{}, false
	}
	if h.Version != describeVersion || h.Build != c.build || h.Dir != dir || h.Abs != abs {
		return inspection.Run{}, false // stale, not corrupt: replaced by put
	}
	for i := 0; ; i++ {
		line, after, ok := strings.Cut(rest, "\n")
		if !ok {
			c.noteCorrupt(name, errors.New("no end of the stat records"))
			return inspection.Run{}, false
		}
		rest = after
		if line == "" {
			break
		}
		rec, err := parseRecord(line)
		if err != nil {
			c.noteCorrupt(name, err)
			return inspection.Run{}, false
		}
		var fi fs.FileInfo
		switch {
		case i == 0 && rec.Rel != ".":
			c.noteCorrupt(name, errors.New("no record of the run directory"))
			return inspection.Run{}, false
		case i == 0:
			fi, err = os.Stat(dir) // followed, as OpenRunDir does
		default:
			fi, err = os.Lstat(filepath.Join(dir, filepath.FromSlash(rec.Rel)))
		}
		if err != nil || recordOf(rec.Rel, fi) != rec {
			return inspection.Run{}, false
		}
	}
	r, err := decodeRun(rest)
	if err != nil {
		c.noteCorrupt(name, err)
		return inspection.Run{}, false
	}
	normalizeRun(&r)
	return r, true
}

// put stores the description of dir with the stat records of the run
// directory and its tree; a failure is a warning.
func (c *describeCache) put(dir string, root fs.FileInfo, entries []treeEntry, r inspection.Run) {
	if c.dir == "" {
		return
	}
	abs := c.abs(dir)
	head := cacheHeader{Version: describeVersion, Build: c.build, Dir: dir, Abs: abs}.encode()
	run := encodeRun(r)
	payload := make([]byte, 0, len(head)+len(run)+64*(len(entries)+2))
	payload = append(append(payload, head...), '\n')
	payload = appendRecord(payload, recordOf(".", root))
	for _, e := range entries {
		payload = appendRecord(payload, recordOfEntry(e))
	}
	payload = append(append(payload, '\n'), run...)
	if len(payload) > maxCacheEntryBytes-128 {
		return // an enormous description is cheaper to recompute
	}
	sum := sha256.Sum256(payload)
	var buf bytes.Buffer
	buf.Grow(len(cacheMagic) + 65 + len(payload))
	buf.WriteString(cacheMagic + hex.EncodeToString(sum[:]) + "\n")
	buf.Write(payload)
	if err := atomicfile.Write(c.file(abs), buf.Bytes()); err != nil {
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
// a symlink, never a pipe: opened O_NOFOLLOW and non-blocking, then
// checked with fstat) of at most maxCacheEntryBytes.
func readCacheFile(name string) ([]byte, error) {
	opened, err := os.OpenFile(name, os.O_RDONLY|openNonBlocking|openNoFollow, 0)
	if err != nil {
		return nil, err
	}
	f, fi, err := checkOpened(opened, name) // closes opened on error
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, whole, err := readLimited(context.Background(), f, fi.Size(), maxCacheEntryBytes, name)
	if err != nil {
		return nil, err
	}
	if !whole {
		return nil, fmt.Errorf("larger than %d bytes", maxCacheEntryBytes)
	}
	return b, nil
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
func normalizeRun(r *inspection.Run) {
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

// The header and the description are written as length-prefixed fields
// rather than JSON: a warm rerun of 20,000 runs decodes one of each per
// run, and JSON's reflection was a sixth of its CPU. A string is
// "<length>:<bytes>", a number "<decimal>;", a list "<count>;" and its
// strings; the whole entry is covered by its checksum, so the decoder only
// has to refuse what cannot be read, never guess.

// encode writes the header on one line (its strings hold no newline:
// paths with one are escaped by the length prefix, and the line ends after
// the last field, not at a newline).
func (h cacheHeader) encode() []byte {
	var b []byte
	for _, s := range []string{h.Version, h.Build, h.Dir, h.Abs} {
		b = appendField(b, s)
	}
	return b
}

// decode reads a header written by encode.
func (h *cacheHeader) decode(s string) error {
	d := fieldDecoder{s: s}
	h.Version, h.Build, h.Dir, h.Abs = d.str(), d.str(), d.str(), d.str()
	return d.done()
}

// encodeRun writes every field of r.
func encodeRun(r inspection.Run) []byte {
	b := make([]byte, 0, 512)
	for _, s := range []string{r.ID, r.Path, string(r.Era), r.System, string(r.Status), r.ContentHash, r.Invalid} {
		b = appendField(b, s)
	}
	for _, l := range [][]string{r.ServicesDeclared, r.ServicesCompleted, r.ServicesErrored, r.ServicesSkipped,
		r.BindingsPresent, r.BindingsMissing, r.ErrorFiles, r.Warnings} {
		b = strconv.AppendInt(b, int64(len(l)), 10)
		b = append(b, ';')
		for _, s := range l {
			b = appendField(b, s)
		}
	}
	b = strconv.AppendInt(b, int64(len(r.Metadata)), 10)
	b = append(b, ';')
	for _, k := range slices.Sorted(maps.Keys(r.Metadata)) {
		b = appendField(appendField(b, k), r.Metadata[k])
	}
	b = strconv.AppendInt(b, r.SizeBytes, 10)
	b = append(b, ';')
	b = strconv.AppendInt(b, int64(r.Files), 10)
	b = append(b, ';')
	if r.Valid {
		return append(b, '1', ';')
	}
	return append(b, '0', ';')
}

// decodeRun reads a description written by encodeRun; its strings are
// copies, so the entry's bytes are not kept alive by the run.
func decodeRun(s string) (inspection.Run, error) {
	d := fieldDecoder{s: s, clone: true}
	var r inspection.Run
	r.ID, r.Path, r.Era, r.System = d.str(), d.str(), inspection.Era(d.str()), d.str()
	r.Status, r.ContentHash, r.Invalid = inspection.Status(d.str()), d.str(), d.str()
	for _, l := range []*[]string{&r.ServicesDeclared, &r.ServicesCompleted, &r.ServicesErrored, &r.ServicesSkipped,
		&r.BindingsPresent, &r.BindingsMissing, &r.ErrorFiles, &r.Warnings} {
		n := d.num()
		if n < 0 || n > int64(len(d.s)) {
			return inspection.Run{}, errors.New("describe cache: bad list length")
		}
		if n > 0 {
			*l = make([]string, n)
			for i := range *l {
				(*l)[i] = d.str()
			}
		}
	}
	n := d.num()
	if n < 0 || n > int64(len(d.s)) {
		return inspection.Run{}, errors.New("describe cache: bad metadata length")
	}
	if n > 0 {
		r.Metadata = make(inspection.Metadata, n)
		for range n {
			k := d.str()
			r.Metadata[k] = d.str()
		}
	}
	r.SizeBytes = d.num()
	r.Files = int(d.num())
	r.Valid = d.num() == 1
	return r, d.done()
}

// appendField appends s length-prefixed.
func appendField(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, ':')
	return append(b, s...)
}

// fieldDecoder reads fields written by appendField and numbers ended by
// ';'; the first error sticks and done reports it.
type fieldDecoder struct {
	s     string
	clone bool
	err   error
}

func (d *fieldDecoder) str() string {
	if d.err != nil {
		return ""
	}
	i := strings.IndexByte(d.s, ':')
	n, err := strconv.Atoi(d.s[:max(i, 0)])
	if i < 0 || err != nil || n < 0 || n > len(d.s)-i-1 {
		d.err = errors.New("describe cache: bad string field")
		return ""
	}
	v := d.s[i+1 : i+1+n]
	d.s = d.s[i+1+n:]
	if d.clone {
		return strings.Clone(v)
	}
	return v
}

func (d *fieldDecoder) num() int64 {
	if d.err != nil {
		return 0
	}
	i := strings.IndexByte(d.s, ';')
	n, err := strconv.ParseInt(d.s[:max(i, 0)], 10, 64)
	if i < 0 || err != nil {
		d.err = errors.New("describe cache: bad number field")
		return 0
	}
	d.s = d.s[i+1:]
	return n
}

func (d *fieldDecoder) done() error {
	if d.err == nil && d.s != "" {
		d.err = errors.New("describe cache: trailing data")
	}
	return d.err
}
