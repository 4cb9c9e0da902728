package runner

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"syscall"

	"github.com/evalcal/evalcal/internal/atomicfile"

	"github.com/evalcal/evalcal/inspection"
)

// Cache stores inspections on disk, one file per inspection, keyed by
// inspector identity, depth and run content hash. It is safe for
// concurrent use, by goroutines and by processes: every write goes to a
// temporary file that is renamed into place, so a reader never sees a
// half-written entry and an interrupted process loses no finished entry.
// Writes are not fsynced: a power loss may lose recent entries, never
// corrupt the others.
//
// Every entry carries a checksum of its key and its content; an entry
// whose checksum does not match (edited by hand, restored from another
// branch's CI cache with other content, damaged on disk) is never served:
// Lookup reports it and the inspection is made again.
//
// Entries are binary (format 3, see encodeEntry): a warm rerun reads one
// entry per run and depth, and decoding and verifying a JSON entry took
// 27-30 µs against 1.3 µs (BenchmarkCacheDecode, a 900-byte entry).
// Entries of format 2 (JSON, written by earlier versions) are still
// served, and rewritten in format 3 when they are read.
type Cache struct {
	dir string
}

// cacheFormat versions the entry layout; entries of another format are
// misses.
const cacheFormat = 3

// jsonCacheFormat is the format of the JSON entries written before
// format 3, still read.
const jsonCacheFormat = 2

// Entry file names: <key>.insp (format 3), <key>.json (format 2).
const (
	entryExt     = ".insp"
	jsonEntryExt = ".json"
)

// entryMagic starts every format-3 entry; its last byte is the format.
var entryMagic = [8]byte{'e', 'v', 'c', 'i', 'n', 's', 'p', cacheFormat}

// MaxCacheEntry bounds the size of one cache entry read from disk; a
// larger file is not an entry evalcal wrote.
const MaxCacheEntry = 16 << 20

// cacheEntry is the on-disk form of a format-2 (JSON) entry; the key
// parts are stored beside the inspection so a hash collision or a stray
// file is detected, not served.
type cacheEntry struct {
	Format      int              `json:"format"`
	Identity    string           `json:"identity"`
	Depth       inspection.Depth `json:"depth"`
	ContentHash string           `json:"content_hash"`
	Inspection  json.RawMessage  `json:"inspection"`
	// Checksum is the hex SHA-256 of CacheKey(identity, depth,
	// content_hash) + "\x00" + the inspection's JSON as stored.
	Checksum string `json:"checksum"`
}

// OpenCache opens (creating it if needed, mode 0o755) the cache directory
// dir. An empty dir, a dir that cannot be created or one that is not a
// writable directory is an error.
func OpenCache(dir string) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("runner: open cache: empty directory name")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("runner: open cache %s: %w", dir, err)
	}
	probe, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return nil, fmt.Errorf("runner: open cache %s: not writable: %w", dir, err)
	}
	name := probe.Name()
	_ = probe.Close()
	_ = os.Remove(name)
	return &Cache{dir: dir}, nil
}

// Dir is the cache's directory.
func (c *Cache) Dir() string {
	if c == nil {
		return ""
	}
	return c.dir
}

// CacheKey is the hex SHA-256 of identity + "\x00" + depth + "\x00" +
// contentHash, the name of an inspection's cache file.
func CacheKey(identity string, depth inspection.Depth, contentHash string) string {
	h := sha256.New()
	h.Write([]byte(identity))
	h.Write([]byte{0})
	h.Write([]byte(depth))
	h.Write([]byte{0})
	h.Write([]byte(contentHash))
	return hex.EncodeToString(h.Sum(nil))
}

// checksum is the format-2 entry checksum of an inspection's JSON under
// key.
func checksum(key string, inspection []byte) string {
	sum := entryChecksum(key, inspection) // the same hash, in hex
	return hex.EncodeToString(sum[:])
}

// path is dir/<first two hex digits>/<key>.insp, where format-3 entries
// are; sharding keeps directories small for large audits.
func (c *Cache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key+entryExt)
}

// jsonPath is where the format-2 entry of key was written.
func (c *Cache) jsonPath(key string) string {
	return filepath.Join(c.dir, key[:2], key+jsonEntryExt)
}

// Get returns the cached inspection for (identity, depth, contentHash);
// see Lookup. A corrupt entry is a miss.
func (c *Cache) Get(identity string, depth inspection.Depth, contentHash string) (inspection.Inspection, bool) {
	insp, ok, _ := c.Lookup(identity, depth, contentHash)
	return insp, ok
}

// Lookup returns the cached inspection for (identity, depth, contentHash).
// A missing entry, an entry of another format, or an empty contentHash is
// a miss with a nil error. An entry that is there but cannot be trusted
// (not a regular file, too large, not an entry, another key, a checksum
// that does not match, an invalid inspection) is a miss with an error
// saying why: the caller inspects again and the next Put overwrites it.
//
// Where no format-3 entry exists, a format-2 (JSON) entry of the same key
// is read by the same rules; when it is served, it is rewritten as a
// format-3 entry and removed (best effort: a cache that cannot be written
// keeps serving the JSON entry).
func (c *Cache) Lookup(identity string, depth inspection.Depth, contentHash string) (inspection.Inspection, bool, error) {
	if c == nil || contentHash == "" {
		return inspection.Inspection{}, false, nil
	}
	key := CacheKey(identity, depth, contentHash)
	p := c.path(key)
	data, err := readRegular(p, MaxCacheEntry)
	if isOpenError(err) {
		return c.lookupJSON(key, identity, depth, contentHash)
	}
	if err != nil {
		return inspection.Inspection{}, false, fmt.Errorf("cache entry %s: %w", p, err)
	}
	e, err := decodeEntry(data)
	if errors.Is(err, errOtherFormat) {
		return inspection.Inspection{}, false, nil
	}
	if err != nil {
		return inspection.Inspection{}, false, fmt.Errorf("cache entry %s: %w", p, err)
	}
	if e.identity != identity || e.depth != depth || e.contentHash != contentHash {
		return inspection.Inspection{}, false, fmt.Errorf("cache entry %s: holds another key", p)
	}
	if e.checksum != entryChecksum(key, e.body) {
		return inspection.Inspection{}, false, fmt.Errorf("cache entry %s: checksum does not match its content", p)
	}
	if err := checkCached(e.insp, depth); err != nil {
		return inspection.Inspection{}, false, fmt.Errorf("cache entry %s: %w", p, err)
	}
	return e.insp, true, nil
}

// isOpenError reports whether err is the failure to open an entry:
// nothing there, or nothing reachable, which is a plain miss.
func isOpenError(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Op == "open"
}

// checkCached checks a decoded inspection as the runner would have
// before storing it: its depth, and CheckInspection.
func checkCached(insp inspection.Inspection, depth inspection.Depth) error {
	if insp.Depth != depth {
		return fmt.Errorf("inspection of depth %q", insp.Depth)
	}
	return inspection.CheckInspection(insp)
}

// lookupJSON is Lookup of a format-2 (JSON) entry, which it upgrades to
// format 3 when it serves it.
func (c *Cache) lookupJSON(key, identity string, depth inspection.Depth, contentHash string) (inspection.Inspection, bool, error) {
	p := c.jsonPath(key)
	data, err := readRegular(p, MaxCacheEntry)
	if isOpenError(err) {
		return inspection.Inspection{}, false, nil
	}
	if err != nil {
		return inspection.Inspection{}, false, fmt.Errorf("cache entry %s: %w", p, err)
	}
	var e cacheEntry
	if err := json.Unmarshal(data, &e); err != nil {
		return inspection.Inspection{}, false, fmt.Errorf("cache entry %s: %w", p, err)
	}
	if e.Format != jsonCacheFormat {
		return inspection.Inspection{}, false, nil
	}
	if e.Identity != identity || e.Depth != depth || e.ContentHash != contentHash {
		return inspection.Inspection{}, false, fmt.Errorf("cache entry %s: holds another key", p)
	}
	if e.Checksum != checksum(key, e.Inspection) {
		return inspection.Inspection{}, false, fmt.Errorf("cache entry %s: checksum does not match its content", p)
	}
	var insp inspection.Inspection
	if err := json.Unmarshal(e.Inspection, &insp); err != nil {
		return inspection.Inspection{}, false, fmt.Errorf("cache entry %s: %w", p, err)
	}
	if err := checkCached(insp, depth); err != nil {
		return inspection.Inspection{}, false, fmt.Errorf("cache entry %s: %w", p, err)
	}
	if c.Put(identity, depth, contentHash, insp) == nil {
		_ = os.Remove(p)
	}
	return insp, true, nil
}

// readRegular reads the regular file p, at most limit bytes. It opens p
// without blocking (a FIFO put where an entry should be cannot hang the
// reader) and refuses anything but a regular file. It reads the size
// fstat reports, in one read for an entry: entries are replaced by
// rename, never written in place, so a file that grows while it is read
// was not written by evalcal, and what was read fails its checksum.
func readRegular(p string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", st.Mode().Type())
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%d bytes, more than the %d-byte limit", st.Size(), limit)
	}
	data := make([]byte, st.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("read %d bytes: %w", st.Size(), err)
	}
	return data, nil
}

// Put stores insp under (identity, depth, contentHash), atomically
// replacing any previous entry. An empty contentHash stores nothing:
// without it the key would not identify the run's content. A NaN or
// infinite figure is an error (no inspection the runner accepts has
// one).
func (c *Cache) Put(identity string, depth inspection.Depth, contentHash string, insp inspection.Inspection) error {
	if c == nil || contentHash == "" {
		return nil
	}
	key := CacheKey(identity, depth, contentHash)
	data, err := encodeEntry(key, identity, depth, contentHash, insp)
	if err != nil {
		return fmt.Errorf("runner: cache put: %w", err)
	}
	final := c.path(key)
	if err := atomicfile.Write(final, data); err != nil {
		return fmt.Errorf("runner: cache put %s: %w", final, err)
	}
	return nil
}

// Len counts the entries in the cache (files named <key>.insp, and
// format-2 ones named <key>.json); a nil cache has none.
func (c *Cache) Len() (int, error) {
	if c == nil {
		return 0, nil
	}
	n := 0
	err := filepath.WalkDir(c.dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ext := filepath.Ext(d.Name()); !d.IsDir() && (ext == entryExt || ext == jsonEntryExt) {
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("runner: cache len %s: %w", c.dir, err)
	}
	return n, nil
}

// A format-3 entry is
//
//	magic      8 bytes: "evcinsp" and the format byte, 3
//	checksum  32 bytes: SHA-256 of CacheKey(identity, depth, content hash) + "\x00" + body
//	body:     the key parts, then the inspection, field by field:
//	          identity, depth, content hash,
//	          run_id, system, depth, runtime_fidelity, task_effectiveness,
//	          services (name, status), flags (id, severity, description,
//	          evidence), verdict, summary,
//	          cost: seconds, tokens, usd, usage (absent, or model, calls,
//	          input, output, cached input, reasoning, missing)
//
// A string is its length (uvarint) and its bytes; a float64 its IEEE 754
// bits (8 bytes, little-endian); an int64 a varint; a list its length
// plus one (uvarint, 0 for a nil list) and its items; a bool or presence
// one byte, 0 or 1. The body must be read to its last byte. Every length
// is checked against the bytes left before anything is allocated, so a
// damaged or hostile file is an error, never a panic or a large
// allocation.

// errOtherFormat marks an entry of another format version: a miss, not
// damage.
var errOtherFormat = errors.New("an entry of another format")

// decodedEntry is a format-3 entry read back.
type decodedEntry struct {
	checksum    [sha256.Size]byte
	body        []byte
	identity    string
	depth       inspection.Depth
	contentHash string
	insp        inspection.Inspection
}

// entryChecksum is the format-3 checksum of body under key.
func entryChecksum(key string, body []byte) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(key))
	h.Write([]byte{0})
	h.Write(body)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// encodeEntry is the format-3 entry of insp under the key parts.
func encodeEntry(key, identity string, depth inspection.Depth, contentHash string, insp inspection.Inspection) ([]byte, error) {
	if err := checkFinite(insp); err != nil {
		return nil, err
	}
	b := make([]byte, len(entryMagic)+sha256.Size, 1024)
	copy(b, entryMagic[:])
	b = appendString(b, identity)
	b = appendString(b, string(depth))
	b = appendString(b, contentHash)
	b = appendString(b, insp.RunID)
	b = appendString(b, insp.System)
	b = appendString(b, string(insp.Depth))
	b = appendFloat(b, insp.RuntimeFidelity)
	b = appendFloat(b, insp.TaskEffectiveness)
	b = appendLen(b, len(insp.Services), insp.Services == nil)
	for _, s := range insp.Services {
		b = appendString(b, s.Name)
		b = appendString(b, s.Status)
	}
	b = appendLen(b, len(insp.Flags), insp.Flags == nil)
	for _, f := range insp.Flags {
		b = appendString(b, f.ID)
		b = appendString(b, f.Severity)
		b = appendString(b, f.Description)
		b = appendString(b, f.Evidence)
	}
	b = appendString(b, insp.Verdict)
	b = appendString(b, insp.Summary)
	b = appendFloat(b, insp.Cost.Seconds)
	b = binary.AppendVarint(b, insp.Cost.Tokens)
	b = appendFloat(b, insp.Cost.USD)
	if u := insp.Cost.Usage; u == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = appendString(b, u.Model)
		for _, v := range []int64{u.Calls, u.Input, u.Output, u.CachedInput, u.Reasoning} {
			b = binary.AppendVarint(b, v)
		}
		b = appendBool(b, u.Missing)
	}
	head := len(entryMagic) + sha256.Size
	sum := entryChecksum(key, b[head:])
	copy(b[len(entryMagic):head], sum[:])
	return b, nil
}

// checkFinite refuses the figures JSON could not hold either, so that an
// entry never serves what a fresh inspection could not be.
func checkFinite(insp inspection.Inspection) error {
	for _, c := range []struct {
		name string
		v    float64
	}{{"runtime_fidelity", insp.RuntimeFidelity}, {"task_effectiveness", insp.TaskEffectiveness},
		{"cost.seconds", insp.Cost.Seconds}, {"cost.usd", insp.Cost.USD}} {
		if math.IsNaN(c.v) || math.IsInf(c.v, 0) {
			return fmt.Errorf("%s: %v is not a finite number", c.name, c.v)
		}
	}
	return nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendFloat(b []byte, x float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
}

// appendLen writes a list's length plus one, or 0 for a nil list.
func appendLen(b []byte, n int, isNil bool) []byte {
	if isNil {
		return append(b, 0)
	}
	return binary.AppendUvarint(b, uint64(n)+1)
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// decodeEntry reads a format-3 entry. The strings it returns share one
// copy of the body. It checks the layout only: the caller compares the
// key parts and the checksum.
func decodeEntry(data []byte) (decodedEntry, error) {
	var e decodedEntry
	head := len(entryMagic) + sha256.Size
	if len(data) < len(entryMagic) || string(data[:len(entryMagic)-1]) != string(entryMagic[:len(entryMagic)-1]) {
		return e, errors.New("not an inspection cache entry")
	}
	if data[len(entryMagic)-1] != cacheFormat {
		return e, errOtherFormat
	}
	if len(data) < head {
		return e, errors.New("truncated entry")
	}
	copy(e.checksum[:], data[len(entryMagic):head])
	e.body = data[head:]
	d := entryDecoder{s: string(e.body)}
	e.identity = d.str()
	e.depth = inspection.Depth(d.str())
	e.contentHash = d.str()
	in := &e.insp
	in.RunID = d.str()
	in.System = d.str()
	in.Depth = inspection.Depth(d.str())
	in.RuntimeFidelity = d.float()
	in.TaskEffectiveness = d.float()
	if n, ok := d.listLen(2); ok {
		in.Services = make([]inspection.Service, n)
		for i := range in.Services {
			in.Services[i] = inspection.Service{Name: d.str(), Status: d.str()}
		}
	}
	if n, ok := d.listLen(4); ok {
		in.Flags = make([]inspection.Flag, n)
		for i := range in.Flags {
			in.Flags[i] = inspection.Flag{ID: d.str(), Severity: d.str(), Description: d.str(), Evidence: d.str()}
		}
	}
	in.Verdict = d.str()
	in.Summary = d.str()
	in.Cost.Seconds = d.float()
	in.Cost.Tokens = d.varint()
	in.Cost.USD = d.float()
	if d.flag() {
		u := &inspection.Usage{Model: d.str()}
		u.Calls, u.Input, u.Output, u.CachedInput, u.Reasoning = d.varint(), d.varint(), d.varint(), d.varint(), d.varint()
		u.Missing = d.flag()
		in.Cost.Usage = u
	}
	if d.err == nil && d.pos != len(d.s) {
		d.fail("%d bytes after the inspection", len(d.s)-d.pos)
	}
	if d.err != nil {
		return decodedEntry{}, d.err
	}
	return e, nil
}

// entryDecoder reads a format-3 body; the first error sticks and every
// later read returns a zero value.
type entryDecoder struct {
	s   string
	pos int
	err error
}

func (d *entryDecoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("damaged entry at byte %d: %s", d.pos, fmt.Sprintf(format, args...))
	}
}

func (d *entryDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	var x uint64
	var shift uint
	for i := 0; i < binary.MaxVarintLen64; i++ {
		if d.pos >= len(d.s) {
			d.fail("truncated number")
			return 0
		}
		c := d.s[d.pos]
		d.pos++
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				break
			}
			return x | uint64(c)<<shift
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	d.fail("number overflows 64 bits")
	return 0
}

func (d *entryDecoder) varint() int64 {
	ux := d.uvarint()
	x := int64(ux >> 1)
	if ux&1 != 0 {
		x = ^x
	}
	return x
}

func (d *entryDecoder) str() string {
	n := d.uvarint()
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.s)-d.pos) {
		d.fail("a string of %d bytes, %d left", n, len(d.s)-d.pos)
		return ""
	}
	s := d.s[d.pos : d.pos+int(n)]
	d.pos += int(n)
	return s
}

func (d *entryDecoder) float() float64 {
	if d.err != nil {
		return 0
	}
	if len(d.s)-d.pos < 8 {
		d.fail("truncated number")
		return 0
	}
	var bits uint64
	for i := 7; i >= 0; i-- {
		bits = bits<<8 | uint64(d.s[d.pos+i])
	}
	d.pos += 8
	return math.Float64frombits(bits)
}

func (d *entryDecoder) flag() bool {
	if d.err != nil {
		return false
	}
	if d.pos >= len(d.s) {
		d.fail("truncated entry")
		return false
	}
	c := d.s[d.pos]
	d.pos++
	if c > 1 {
		d.fail("flag byte %d", c)
	}
	return c == 1
}

// listLen reads a list length; ok is false for a nil list (and on error).
// Each item takes at least minItem bytes, so a length the bytes left
// cannot hold is an error before anything is allocated.
func (d *entryDecoder) listLen(minItem int) (int, bool) {
	n := d.uvarint()
	if d.err != nil || n == 0 {
		return 0, false
	}
	n--
	if n > uint64((len(d.s)-d.pos)/minItem) {
		d.fail("a list of %d items, %d bytes left", n, len(d.s)-d.pos)
		return 0, false
	}
	return int(n), true
}
