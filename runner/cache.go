package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Cache stores inspections on disk, one JSON file per inspection, keyed
// by inspector identity, depth and run content hash. It is safe for
// concurrent use: every write goes to a temporary file that is renamed
// into place, so a reader never sees a half-written entry and an
// interrupted process loses no finished entry. Writes are not fsynced: a
// power loss may lose recent entries, never corrupt the others.
type Cache struct {
	dir string
}

// cacheEntry is the on-disk form; the key parts are stored beside the
// inspection so a hash collision or a stray file is detected, not served.
type cacheEntry struct {
	Identity    string     `json:"identity"`
	Depth       Depth      `json:"depth"`
	ContentHash string     `json:"content_hash"`
	Inspection  Inspection `json:"inspection"`
}

// OpenCache opens (creating it if needed, mode 0o755) the cache directory
// dir. An empty dir or a dir that cannot be created is an error.
func OpenCache(dir string) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("runner: open cache: empty directory name")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("runner: open cache %s: %w", dir, err)
	}
	return &Cache{dir: dir}, nil
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

// path is dir/<first two hex digits>/<key>.json; sharding keeps
// directories small for large audits.
func (c *Cache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key+".json")
}

// Get returns the cached inspection for (identity, depth, contentHash).
// A missing, unreadable or corrupt entry (bad JSON, other key, invalid
// inspection) is a miss, never an error: the next Put overwrites it. An
// empty contentHash is always a miss.
func (c *Cache) Get(identity string, depth Depth, contentHash string) (Inspection, bool) {
	if c == nil || contentHash == "" {
		return Inspection{}, false
	}
	data, err := os.ReadFile(c.path(CacheKey(identity, depth, contentHash)))
	if err != nil {
		return Inspection{}, false
	}
	var e cacheEntry
	if err := json.Unmarshal(data, &e); err != nil {
		return Inspection{}, false
	}
	if e.Identity != identity || e.Depth != depth || e.ContentHash != contentHash ||
		e.Inspection.Depth != depth || CheckInspection(e.Inspection) != nil {
		return Inspection{}, false
	}
	return e.Inspection, true
}

// Put stores insp under (identity, depth, contentHash), atomically
// replacing any previous entry. An empty contentHash stores nothing:
// without it the key would not identify the run's content.
func (c *Cache) Put(identity string, depth Depth, contentHash string, insp Inspection) error {
	if c == nil || contentHash == "" {
		return nil
	}
	data, err := json.Marshal(cacheEntry{Identity: identity, Depth: depth, ContentHash: contentHash, Inspection: insp})
	if err != nil {
		return fmt.Errorf("runner: cache put: %w", err)
	}
	final := c.path(CacheKey(identity, depth, contentHash))
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
