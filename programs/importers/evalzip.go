package importers

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"
)

// errUncompressedTotal is returned by readMember once the members read
// together pass the archive's uncompressed limit: a zip bomb, or a log
// too big to import. The whole archive is refused.
var errUncompressedTotal = errors.New("uncompressed members too large")

// evalArchive is a .eval log (a zip archive) opened for bounded reading.
type evalArchive struct {
	zr  *zip.Reader
	lim limits
	// read counts the uncompressed bytes read from members so far.
	read int64
	// sum is the lowercase hex SHA-256 of the archive file.
	sum string
}

// openEvalArchive reads the zip archive in f: a regular file is read in
// place (its size checked against lim.file first); a pipe or device is
// read into memory, at most lim.file bytes. The entry count of the
// central directory is checked against lim.members before the directory
// is read, so a directory of millions of entries never allocates.
func openEvalArchive(ctx context.Context, f *os.File, br *bufio.Reader, lim limits) (*evalArchive, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var ra io.ReaderAt
	var size int64
	a := &evalArchive{lim: lim}
	if fi.Mode().IsRegular() {
		size = fi.Size()
		if size > lim.file {
			return nil, fmt.Errorf("longer than %d bytes", lim.file)
		}
		ra = f
		if a.sum, err = hashReaderAt(ctx, f, size); err != nil {
			return nil, err
		}
	} else {
		lr := newLimitedReader(br, lim.file)
		data, err := io.ReadAll(lr)
		switch {
		case errors.Is(err, errFileTooLong):
			return nil, fmt.Errorf("longer than %d bytes", lim.file)
		case err != nil:
			return nil, err
		}
		ra, size = bytes.NewReader(data), int64(len(data))
		a.sum = fmt.Sprintf("%x", sha256.Sum256(data))
	}
	if n, ok := zipEntryCount(ra, size); ok && n > uint64(lim.members) {
		return nil, fmt.Errorf("the zip directory declares %d entries, more than the limit %d", n, lim.members)
	}
	zr, err := zip.NewReader(ra, size)
	if err != nil && !(errors.Is(err, zip.ErrInsecurePath) && zr != nil) {
		// Names like "../x" are harmless here: nothing is written out.
		return nil, fmt.Errorf("not a zip archive, or a truncated one: %w", err)
	}
	zr.RegisterDecompressor(zipZstandard, newZstdReader)
	if len(zr.File) > lim.members {
		return nil, fmt.Errorf("the zip directory holds %d entries, more than the limit %d", len(zr.File), lim.members)
	}
	a.zr = zr
	return a, nil
}

// hashReaderAt is the hex SHA-256 of the first size bytes of r, read in
// chunks so that ctx can stop it.
func hashReaderAt(ctx context.Context, r io.ReaderAt, size int64) (string, error) {
	h := sha256.New()
	buf := make([]byte, 1<<20)
	for off := int64(0); off < size; {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		n, err := r.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		h.Write(buf[:n])
		off += int64(n)
		if err != nil && !(errors.Is(err, io.EOF) && off == size) {
			return "", err
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil)), nil
}

// zipEntryCount reads the number of central-directory entries an archive
// declares in its end records (ZIP64 included: APPNOTE.TXT 4.3.14-4.3.16),
// without reading the directory; ok is false when no end record is found
// (zip.NewReader then says what is wrong).
func zipEntryCount(r io.ReaderAt, size int64) (uint64, bool) {
	const eocdLen, maxComment = 22, 0xFFFF
	tailLen := min(size, eocdLen+maxComment)
	tail := make([]byte, tailLen)
	if _, err := r.ReadAt(tail, size-tailLen); err != nil && !errors.Is(err, io.EOF) {
		return 0, false
	}
	i := bytes.LastIndex(tail, []byte("PK\x05\x06"))
	if i < 0 || len(tail)-i < eocdLen {
		return 0, false
	}
	eocd := tail[i:]
	n := uint64(binary.LittleEndian.Uint16(eocd[10:12]))
	if n != 0xFFFF {
		return n, true
	}
	// ZIP64: the locator (20 bytes) sits just before the end record and
	// points at the ZIP64 end record, whose entry count is at offset 32.
	locAt := size - tailLen + int64(i) - 20
	if locAt < 0 {
		return n, true
	}
	loc := make([]byte, 20)
	if _, err := r.ReadAt(loc, locAt); err != nil || !bytes.Equal(loc[:4], []byte("PK\x06\x07")) {
		return n, true
	}
	recAt := binary.LittleEndian.Uint64(loc[8:16])
	rec := make([]byte, 56)
	if recAt > uint64(size) || recAt+56 > uint64(size) {
		return n, true
	}
	if _, err := r.ReadAt(rec, int64(recAt)); err != nil || !bytes.Equal(rec[:4], []byte("PK\x06\x06")) {
		return n, true
	}
	return binary.LittleEndian.Uint64(rec[32:40]), true
}

// zipZstandard is the zip method number of Zstandard (APPNOTE 6.3.7,
// Python's zipfile.ZIP_ZSTANDARD): what inspect_ai writes members with
// when INSPECT_USE_ZSTD is set.
const zipZstandard = 93

// zstdMaxWindow bounds the window a Zstandard frame may ask for, and so
// the decoder's memory per member being read: 128 MiB is what `zstd
// --ultra -22` uses; a frame asking for more is refused, not read.
const zstdMaxWindow = 128 << 20

// newZstdReader is archive/zip's decompressor for zipZstandard members:
// one frame after another, on the calling goroutine, with a bounded
// window. The member's size limit and CRC are checked by readMember and
// archive/zip as for deflate.
func newZstdReader(r io.Reader) io.ReadCloser {
	d, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(zstdMaxWindow))
	if err != nil {
		return errReadCloser{fmt.Errorf("zstandard: %w", err)}
	}
	return zstdReadCloser{d}
}

// zstdReadCloser names the decoder's errors and releases it on Close.
type zstdReadCloser struct{ d *zstd.Decoder }

func (z zstdReadCloser) Read(p []byte) (int, error) {
	n, err := z.d.Read(p)
	switch {
	case errors.Is(err, zstd.ErrWindowSizeExceeded):
		err = fmt.Errorf("zstandard: the frame asks for a window over the limit of %d bytes: %w", zstdMaxWindow, err)
	case err != nil && err != io.EOF:
		err = fmt.Errorf("zstandard: %w", err)
	}
	return n, err
}

func (z zstdReadCloser) Close() error {
	z.d.Close()
	return nil
}

// errReadCloser is a reader that fails with err.
type errReadCloser struct{ err error }

func (e errReadCloser) Read([]byte) (int, error) { return 0, e.err }
func (e errReadCloser) Close() error             { return nil }

// methodName names the zip compression methods a .eval log may use.
func methodName(m uint16) string {
	switch m {
	case zip.Store:
		return "stored"
	case zip.Deflate:
		return "deflate"
	case zipZstandard:
		return "zstandard"
	}
	return fmt.Sprintf("method %d", m)
}

// readMember reads one member, uncompressed, in at most lim.member bytes,
// whatever its header declares: a member that declares more is refused
// before it is read, one that inflates past what it declares is cut (and
// archive/zip reports it), and the members read together stay under
// lim.total (errUncompressedTotal past it).
func (a *evalArchive) readMember(f *zip.File) ([]byte, error) {
	switch f.Method {
	case zip.Store, zip.Deflate, zipZstandard:
	default:
		return nil, fmt.Errorf("compressed with %s, which evalcal does not read (want stored, deflate or zstandard)", methodName(f.Method))
	}
	if f.UncompressedSize64 > uint64(a.lim.member) {
		return nil, fmt.Errorf("declares %d bytes uncompressed, more than the limit %d", f.UncompressedSize64, a.lim.member)
	}
	if a.read+int64(f.UncompressedSize64) > a.lim.total {
		return nil, fmt.Errorf("%w: more than %d bytes", errUncompressedTotal, a.lim.total)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	// Nothing is allocated from the declared size (a header may declare
	// 255 MiB and hold 2 bytes): the buffer grows with what is read.
	var buf bytes.Buffer
	_, err = buf.ReadFrom(io.LimitReader(rc, a.lim.member+1))
	data := buf.Bytes()
	a.read += int64(len(data))
	switch {
	case int64(len(data)) > a.lim.member:
		return nil, fmt.Errorf("inflates past the limit of %d bytes (it declares %d)", a.lim.member, f.UncompressedSize64)
	case a.read > a.lim.total:
		return nil, fmt.Errorf("%w: more than %d bytes", errUncompressedTotal, a.lim.total)
	case errors.Is(err, zip.ErrFormat):
		// What archive/zip's reader of an opened member says when it
		// runs past its declared size (its only ErrFormat there).
		return nil, fmt.Errorf("inflates past the %d bytes it declares: %w", f.UncompressedSize64, err)
	case err != nil:
		return nil, err
	}
	return data, nil
}
