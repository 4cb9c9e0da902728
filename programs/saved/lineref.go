package saved

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"runtime"
	"sync"

	"github.com/evalcal/evalcal/inspection"
)

// A saved file that is a regular file of RereadBytes or more is not kept
// in memory decoded: a million runs of inspections decoded are some 1.3
// GB, their places in the file some 50 MB (issue 26). Load checks every
// line as before and keeps, per accepted line, where it is (lineRef);
// Inspect reads it again with ReadAt and decodes it. A smaller file is
// kept decoded (Inspector.byKey), and so is a pipe or a device, which
// cannot be read twice.

// lineRef is where an accepted line is in the file: its offset and
// length (trimmed of surrounding space; at most MaxLineBytes), its number
// for errors, and a hash of its bytes, so that a file changed between
// Load and Inspect fails that inspection rather than serving another
// line. n == 0: none.
type lineRef struct {
	off  int64
	no   int
	hash uint64
	n    uint32
}

// lineFile is the regular file Inspect reads lines from again.
type lineFile struct {
	f    *os.File
	path string
	seed maphash.Seed
	// bufs holds the buffers reread reads lines into (*[]byte, each as
	// long as the longest line it has held, at most MaxLineBytes).
	bufs sync.Pool
}

// keepFile makes in read its lines from f (a regular file, open): the
// file is closed by Release, or when in is collected.
func (in *Inspector) keepFile(f *os.File, path string, seed maphash.Seed) {
	in.file = &lineFile{f: f, path: path, seed: seed}
	runtime.AddCleanup(in, func(f *os.File) { _ = f.Close() }, f)
}

// reread returns the inspection of the line at ref, read again from the
// file and decoded as Load decoded it. A line that cannot be read or no
// longer holds the bytes Load read is a permanent error naming the file
// and the line.
func (lf *lineFile) reread(ref lineRef) (inspection.Inspection, error) {
	// The line's bytes are needed only while it is decoded (decoding
	// copies every string), so the buffer is reused: a million runs read
	// 600 MB of lines again.
	bp, _ := lf.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	defer lf.bufs.Put(bp)
	if cap(*bp) < int(ref.n) {
		*bp = make([]byte, ref.n)
	}
	buf := (*bp)[:ref.n]
	if _, err := lf.f.ReadAt(buf, ref.off); err != nil {
		return inspection.Inspection{}, inspection.Permanent(fmt.Errorf("saved: %s:%d: read again: %w", lf.path, ref.no, err))
	}
	if maphash.Bytes(lf.seed, buf) != ref.hash {
		return inspection.Inspection{}, inspection.Permanent(fmt.Errorf("saved: %s:%d: %w", lf.path, ref.no, errChanged))
	}
	insp, err := parseLine(buf)
	if err != nil { // cannot happen: the same bytes decoded at Load
		return inspection.Inspection{}, inspection.Permanent(fmt.Errorf("saved: %s:%d: %w", lf.path, ref.no, err))
	}
	return insp, nil
}

// errChanged says a line's bytes are not those Load read.
var errChanged = errors.New("the line changed after the file was read; run again")

// lineSums are a run's lines as the content hash needs them: raw holds
// a depth's first line until the hash is computed (hash, once both
// depths' lines are final), size their lengths, seen the depths seen.
type lineSums struct {
	raw   [2][]byte
	final [2]bool
	size  [2]int
	seen  uint8
	hash  string
}

// keep records line as the first line of depth index k when none is yet
// (a skimmed or rejected line; copied into a).
func (s *lineSums) keep(k int, line []byte, a *arena) {
	if s.seen&(1<<k) != 0 {
		return
	}
	s.raw[k], s.size[k], s.seen = a.copy(line), len(line), s.seen|1<<k
}

// decoded records line as depth k's decoded line, which is final: a
// later line of the depth is a duplicate and changes nothing. Once both
// depths' lines are final the content hash is computed and the lines let
// go (a million runs' lines are some 600 MB).
func (s *lineSums) decoded(k int, line []byte, a *arena) {
	s.raw[k], s.size[k], s.seen, s.final[k] = a.copy(line), len(line), s.seen|1<<k, true
	if s.final[0] && s.final[1] {
		s.hash, s.raw = contentHash(s.raw), [2][]byte{}
	}
}

// contentHashOf returns the run's content hash (contentHash).
func (s *lineSums) contentHashOf() string {
	if s.hash != "" {
		return s.hash
	}
	return contentHash(s.raw)
}

func contentHash(raw [2][]byte) string {
	h := sha256.New()
	h.Write([]byte("light\x00"))
	h.Write(raw[0])
	h.Write([]byte("\x00deep\x00"))
	h.Write(raw[1])
	return hex.EncodeToString(h.Sum(nil))
}
