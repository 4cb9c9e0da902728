package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Cache stores inspections on disk, one JSON file per inspection, keyed
// by inspector identity, depth and run content hash. It is safe for
// concurrent use: every write goes to a temporary file that is renamed
// into place, so a reader never sees a half-written entry and an
// interrupted process loses no finished entry. Writes are not fsynced: a
// power loss may lose recent entries, never corrupt the others.
//
// Every entry carries a checksum of its key and its inspection; an entry
// whose checksum does not match (edited by hand, restored from another
// branch's CI cache with other content, damaged on disk) is never served:
// Lookup reports it and the inspection is made again.
type Cache struct {
	dir string
}

// cacheFormat versions the entry layout; entries of another format are
// misses.
const cacheFormat = 2

// MaxCacheEntry bounds the size of one cache entry read from disk; a
// larger file is not an entry evalcal wrote.
const MaxCacheEntry = 16 << 20

// cacheEntry is the on-disk form; the key parts are stored beside the
// inspection so a hash collision or a stray file is detected, not served.
type cacheEntry struct {
	Format      int             `json:"format"`
	Identity    string          `json:"identity"`
	Depth       Depth           `json:"depth"`
	ContentHash string          `json:"content_hash"`
	Inspection  json.RawMessage `json:"inspection"`
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
func CacheKey(identity string, depth Depth, contentHash string) string {
	h := sha256.New()
	h.Write([]byte(identity))
	h.Write([]byte{0})
	h.Write([]byte(depth))
	h.Write([]byte{0})
	h.Write([]byte(contentHash))
	return hex.EncodeToString(h.Sum(nil))
}

// checksum is the entry checksum of an inspection's JSON under key.
func checksum(key string, inspection []byte) string {
	h := sha256.New()
	h.Write([]byte(key))
	h.Write([]byte{0})
	h.Write(inspection)
	return hex.EncodeToString(h.Sum(nil))
}

// path is dir/<first two hex digits>/<key>.json; sharding keeps
// directories small for large audits.
func (c *Cache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key+".json")
}

// Get returns the cached inspection for (identity, depth, contentHash);
// see Lookup. A corrupt entry is a miss.
func (c *Cache) Get(identity string, depth Depth, contentHash string) (Inspection, bool) {
	insp, ok, _ := c.Lookup(identity, depth, contentHash)
	return insp, ok
}

// Lookup returns the cached inspection for (identity, depth, contentHash).
// A missing entry, an entry of another format, or an empty contentHash is
// a miss with a nil error. An entry that is there but cannot be trusted
// (not a regular file, too large, bad JSON, another key, a checksum that
// does not match, an invalid inspection) is a miss with an error saying
// why: the caller inspects again and the next Put overwrites it.
func (c *Cache) Lookup(identity string, depth Depth, contentHash string) (Inspection, bool, error) {
	if c == nil || contentHash == "" {
		return Inspection{}, false, nil
	}
	key := CacheKey(identity, depth, contentHash)
	p := c.path(key)
	data, err := readRegular(p, MaxCacheEntry)
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Op == "open" {
		// Nothing there, or nothing reachable: a plain miss.
		return Inspection{}, false, nil
	}
	if err != nil {
		return Inspection{}, false, fmt.Errorf("cache entry %s: %w", p, err)
	}
	var e cacheEntry
	if err := json.Unmarshal(data, &e); err != nil {
		return Inspection{}, false, fmt.Errorf("cache entry %s: %w", p, err)
	}
	if e.Format != cacheFormat {
		return Inspection{}, false, nil
	}
	if e.Identity != identity || e.Depth != depth || e.ContentHash != contentHash {
		return Inspection{}, false, fmt.Errorf("cache entry %s: holds another key", p)
	}
	if e.Checksum != checksum(key, e.Inspection) {
		return Inspection{}, false, fmt.Errorf("cache entry %s: checksum does not match its content", p)
	}
	var insp Inspection
	if err := json.Unmarshal(e.Inspection, &insp); err != nil {
		return Inspection{}, false, fmt.Errorf("cache entry %s: %w", p, err)
	}
	if insp.Depth != depth {
		return Inspection{}, false, fmt.Errorf("cache entry %s: inspection of depth %q", p, insp.Depth)
	}
	if err := CheckInspection(insp); err != nil {
		return Inspection{}, false, fmt.Errorf("cache entry %s: %w", p, err)
	}
	return insp, true, nil
}

// readRegular reads the regular file p, at most limit bytes. It opens p
// without blocking (a FIFO put where an entry should be cannot hang the
// reader) and refuses anything but a regular file.
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
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("more than the %d-byte limit", limit)
	}
	return data, nil
}

// Put stores insp under (identity, depth, contentHash), atomically
// replacing any previous entry. An empty contentHash stores nothing:
// without it the key would not identify the run's content.
func (c *Cache) Put(identity string, depth Depth, contentHash string, insp Inspection) error {
	if c == nil || contentHash == "" {
		return nil
	}
	key := CacheKey(identity, depth, contentHash)
	raw, err := json.Marshal(insp)
	if err != nil {
		return fmt.Errorf("runner: cache put: %w", err)
	}
	data, err := json.Marshal(cacheEntry{Format: cacheFormat, Identity: identity, Depth: depth,
		ContentHash: contentHash, Inspection: raw, Checksum: checksum(key, raw)})
	if err != nil {
		return fmt.Errorf("runner: cache put: %w", err)
	}
	final := c.path(key)
	shard := filepath.Dir(final)
	if err := os.MkdirAll(shard, 0o755); err != nil {
		return fmt.Errorf("runner: cache put %s: %w", shard, err)
	}
	tmp, err := os.CreateTemp(shard, ".tmp-*")
	if err != nil {
		return fmt.Errorf("runner: cache put %s: %w", shard, err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("runner: cache put %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("runner: cache put %s: %w", final, err)
	}
	return nil
}

// Len counts the entries in the cache (files named <key>.json); a nil
// cache has none.
func (c *Cache) Len() (int, error) {
	if c == nil {
		return 0, nil
	}
	n := 0
	err := filepath.WalkDir(c.dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && filepath.Ext(d.Name()) == ".json" {
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("runner: cache len %s: %w", c.dir, err)
	}
	return n, nil
}
