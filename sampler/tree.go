package sampler

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"sort"
	"strconv"
)

// MaxRunEntries bounds the files, directories and links one run directory
// may hold; a larger run is described as invalid rather than listed
// (memory per run stays bounded).
const MaxRunEntries = 200_000

// entryKind is what a tree entry is, as Lstat sees it.
type entryKind uint8

const (
	entryFile       entryKind = iota // a regular file
	entryDir                         // a directory
	entryLink                        // a symlink (never entered)
	entryOther                       // a pipe, socket or device: listed, never opened
	entryUnreadable                  // a directory that could not be listed
)

// treeEntry is one entry of a run directory's tree, with what the
// describe cache keys on.
type treeEntry struct {
	rel    string // slash-separated, relative to the run directory
	kind   entryKind
	mode   fs.FileMode
	size   int64
	mtime  int64 // nanoseconds since the epoch
	ctime  int64 // nanoseconds; 0 where the platform has none
	dev    uint64
	ino    uint64
	target string // a link's target text
	empty  bool   // a directory with no entries
	err    string // why a directory could not be listed
}

// walkTree lists every entry under the run directory, sorted by path,
// without following symlinks; directories are opened through the run's
// os.Root, non-blocking. A directory that cannot be listed is an
// entryUnreadable (the walk goes on); the error is non-nil only when the
// run directory itself cannot be listed, ctx is done, or the run holds
// more than MaxRunEntries entries.
func walkTree(ctx context.Context, d *RunDir) ([]treeEntry, error) {
	return walkTreeLimit(ctx, d, MaxRunEntries)
}

// walkTreeLimit is walkTree with a bound of limit entries.
func walkTreeLimit(ctx context.Context, d *RunDir, limit int) ([]treeEntry, error) {
	var out []treeEntry
	type pending struct {
		rel   string
		index int // of the directory's own entry in out; -1 for "."
	}
	stack := []pending{{".", -1}}
	for len(stack) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		dir := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		ents, err := d.readDir(dir.rel)
		switch {
		case err != nil && dir.index < 0:
			return nil, fmt.Errorf("sampler: list %s: %w", d.path, err)
		case err != nil:
			// A listed directory that cannot be opened: its content is
			// unknown; the hash and the warnings say so.
			out[dir.index].kind, out[dir.index].err = entryUnreadable, err.Error()
			continue
		case len(ents) == 0 && dir.index >= 0:
			out[dir.index].empty = true
		}
		for _, e := range ents {
			rel := e.Name()
			if dir.rel != "." {
				rel = dir.rel + "/" + e.Name()
			}
			te, err := d.entry(rel, e)
			if err != nil {
				// Removed since the listing: skip it, as if listed later.
				continue
			}
			out = append(out, te)
			if len(out) > limit {
				return nil, fmt.Errorf("sampler: list %s: more than %d entries", d.path, limit)
			}
			if te.kind == entryDir {
				stack = append(stack, pending{rel, len(out) - 1})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rel < out[j].rel })
	return out, nil
}

// readDir lists one directory of the run (in directory order).
func (d *RunDir) readDir(dir string) ([]os.DirEntry, error) {
	f, err := d.root.OpenFile(dir, os.O_RDONLY|openNonBlocking, 0)
	if err != nil {
		return nil, classify(err)
	}
	return readOpenDir(f)
}

// readOpenDir lists the directory f, opened non-blocking, after checking
// with fstat that it is one; it closes f.
func readOpenDir(f *os.File) ([]os.DirEntry, error) {
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, unwrapPath(err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("not a directory (%s)", fi.Mode().Type())
	}
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, unwrapPath(err)
	}
	return ents, nil
}

// entry stats one listed entry (in a Root, ReadDir has already lstat'ed
// it) and reads a link's target.
func (d *RunDir) entry(rel string, e os.DirEntry) (treeEntry, error) {
	fi, err := e.Info()
	if err != nil {
		return treeEntry{}, err
	}
	te := treeEntry{rel: rel, mode: fi.Mode(), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	te.dev, te.ino, te.ctime, _ = fileIdentity(fi)
	switch t := fi.Mode().Type(); {
	case t == 0:
		te.kind = entryFile
	case t == fs.ModeDir:
		te.kind, te.size = entryDir, 0
	case t == fs.ModeSymlink:
		te.kind = entryLink
		if te.target, err = d.root.Readlink(rel); err != nil {
			return treeEntry{}, err
		}
	default:
		te.kind, te.size = entryOther, 0
	}
	return te, nil
}

// otherType names a special file's type in the content hash.
func otherType(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "chardev"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "irregular"
}

// contentHash is the run's ContentHash: the hex SHA-256 of one record
// per entry, in sorted path order, where P is the entry's relative path
// (slash-separated; it holds no NUL) and N a decimal number:
//
//	regular file      P NUL N NUL <its N bytes>
//	empty directory   P NUL "dir" NUL
//	symlink           P NUL "link" NUL N NUL <its target text, N bytes>
//	pipe, socket ...  P NUL "pipe" | "socket" | "chardev" | "device" | "irregular" NUL
//	unlistable dir    P NUL "unreadable" NUL
//
// A record's second field is digits only for a file, so the stream
// decodes one way. A directory that holds anything is implied by its
// entries' paths and has no record of its own; a run of regular files
// and non-empty directories therefore hashes as it did before
// directories and links were covered. Symlinks are hashed by their
// target text, never followed: what an in-run link points to is hashed
// under its own path. Each file is read exactly to the size Lstat gave
// (streamed, constant memory); a file whose size changes while it is
// read, or that is not a regular file when opened, is an error. ctx is
// checked between reads.
func contentHash(ctx context.Context, d *RunDir, entries []treeEntry) (string, error) {
	h := sha256.New()
	buf := make([]byte, 64*1024)
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		switch e.kind {
		case entryFile:
			if err := hashFile(ctx, h, d, e, buf); err != nil {
				return "", err
			}
		case entryDir:
			if e.empty {
				io.WriteString(h, e.rel+"\x00dir\x00")
			}
		case entryLink:
			io.WriteString(h, e.rel+"\x00link\x00"+strconv.Itoa(len(e.target))+"\x00"+e.target)
		case entryOther:
			io.WriteString(h, e.rel+"\x00"+otherType(e.mode)+"\x00")
		case entryUnreadable:
			io.WriteString(h, e.rel+"\x00unreadable\x00")
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func hashFile(ctx context.Context, h hash.Hash, d *RunDir, e treeEntry, buf []byte) error {
	// Lstat said regular; open without following a link swapped in since.
	f, err := d.root.OpenFile(e.rel, os.O_RDONLY|openNonBlocking, 0)
	if err != nil {
		return fmt.Errorf("sampler: hash %s: %w", d.full(e.rel), classify(err))
	}
	defer f.Close()
	if _, fi, err := checkOpened(f, d.full(e.rel)); err != nil {
		return fmt.Errorf("sampler: hash: %w", err)
	} else if fi.Size() != e.size {
		return fmt.Errorf("sampler: hash %s: file changed while read (%d bytes listed, %d now)", d.full(e.rel), e.size, fi.Size())
	}
	io.WriteString(h, e.rel+"\x00"+strconv.FormatInt(e.size, 10)+"\x00")
	n, err := io.CopyBuffer(h, ctxReader{ctx: ctx, r: io.LimitReader(f, e.size+1)}, buf)
	if err != nil {
		return fmt.Errorf("sampler: hash %s: %w", d.full(e.rel), err)
	}
	if n != e.size {
		return fmt.Errorf("sampler: hash %s: file changed while read (%d of %d bytes)", d.full(e.rel), n, e.size)
	}
	return nil
}

// newestTime is the latest mtime or ctime of the entries, nanoseconds.
func newestTime(entries []treeEntry) int64 {
	var t int64
	for _, e := range entries {
		t = max(t, e.mtime, e.ctime)
	}
	return t
}

// runFilesOf is the description's view of the tree: regular files, plus
// symlinks that resolve inside the run to a regular file (listed under
// the link's path with the target's size); other links and special
// files are warnings.
func runFilesOf(d *RunDir, entries []treeEntry) runFiles {
	rf := runFiles{size: make(map[string]int64, len(entries)), dirs: map[string]bool{}}
	for _, e := range entries {
		switch e.kind {
		case entryDir:
			rf.dirs[e.rel] = true
		case entryFile:
			rf.paths = append(rf.paths, e.rel)
			rf.size[e.rel] = e.size
		case entryLink:
			fi, err := d.Stat(e.rel)
			switch {
			case errors.Is(err, ErrOutsideRun):
				rf.warn = append(rf.warn, fmt.Sprintf("%s: symlink to %s leads outside the run directory, ignored", e.rel, e.target))
			case errors.Is(err, fs.ErrNotExist):
				rf.warn = append(rf.warn, fmt.Sprintf("%s: dangling symlink to %s, ignored", e.rel, e.target))
			case err != nil:
				rf.warn = append(rf.warn, fmt.Sprintf("%s: symlink to %s: %v", e.rel, e.target, errors.Unwrap(err)))
			case fi.IsDir():
				rf.warn = append(rf.warn, fmt.Sprintf("%s: symlink to directory %s, not followed", e.rel, e.target))
			case !fi.Mode().IsRegular():
				rf.warn = append(rf.warn, fmt.Sprintf("%s: symlink to %s, not a regular file, ignored", e.rel, e.target))
			default:
				rf.paths = append(rf.paths, e.rel)
				rf.size[e.rel] = fi.Size()
			}
		case entryOther:
			rf.warn = append(rf.warn, fmt.Sprintf("%s: not a regular file (%s), ignored", e.rel, otherType(e.mode)))
		case entryUnreadable:
			rf.warn = append(rf.warn, fmt.Sprintf("%s: unreadable: %s", e.rel, e.err))
		}
	}
	// entries are sorted by path, so paths are too.
	return rf
}
