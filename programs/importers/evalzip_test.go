package importers

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/evalcal/evalcal/inspection"
)

func sha256Hex(b []byte) string { return fmt.Sprintf("%x", sha256.Sum256(b)) }

// member is one entry of a test archive. raw, when set, is written as the
// member's compressed bytes under the header given (declared sizes that
// lie); method 0 means deflate.
type member struct {
	name   string
	data   string
	method uint16
	raw    *rawMember
}

type rawMember struct {
	compressed         []byte
	crc                uint32
	uncompressed       uint64
	method             uint16
	declaredCompressed uint64
}

const evalHeader = `{"version": 2, "status": "success", "eval": {"task": "zipped", "config": {"epochs": 1}}}`

func writeEval(t *testing.T, members []member) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range members {
		if m.raw != nil {
			fh := &zip.FileHeader{Name: m.name, Method: m.raw.method, CRC32: m.raw.crc,
				CompressedSize64: uint64(len(m.raw.compressed)), UncompressedSize64: m.raw.uncompressed}
			w, err := zw.CreateRaw(fh)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(m.raw.compressed)
			continue
		}
		method := m.method
		if method == 0 {
			method = zip.Deflate
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: m.name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(m.data))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "log.eval")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func deflate(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestCompression)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

func evalSample(id, epoch int, value string) member {
	return member{name: fmt.Sprintf("samples/%d_epoch_%d.json", id, epoch),
		data: fmt.Sprintf(`{"id": %d, "epoch": %d, "input": "q", "target": "t", "scores": {"s": {"value": %s}}}`, id, epoch, value)}
}

// A .eval log without header.json (an eval still running) is read from
// _journal/start.json; epochs above one name the runs id#epoch; a member
// that is not JSON fails only its sample, attributed by its name.
func TestEvalArchiveReadsSamples(t *testing.T) {
	path := writeEval(t, []member{
		{name: "_journal/start.json", data: `{"version": 2, "eval": {"task": "running", "config": {"epochs": 2}}, "plan": {}}`},
		evalSample(1, 1, `"C"`), evalSample(1, 2, `"I"`), evalSample(2, 1, `0.5`),
		{name: "samples/2_epoch_2.json", data: `{"id": 2, "epoch": 2, "scores": {"s": {"value": "C"}`},
		{name: "samples/junk.json", data: `not json`},
		{name: "summaries.json", data: `[]`},
	})
	src, runs, err := LoadInspect(context.Background(), path, "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.ID)
		if r.System != "running" {
			t.Errorf("system %q", r.System)
		}
	}
	if strings.Join(ids, " ") != "1#1 1#2 2#1 2#2" {
		t.Errorf("ids %v", ids)
	}
	got := inspectAll(t, src, runs)
	if got["1#1"].Verdict != "pass" || got["1#2"].Verdict != "fail" || got["2#1"].Verdict != "partial" || len(got) != 3 {
		t.Errorf("%v", got)
	}
	_, err = src.Inspect(context.Background(), inspection.Run{ID: "2#2"}, inspection.Deep)
	if err == nil || !strings.Contains(err.Error(), "log.eval: samples/2_epoch_2.json: sample 2 epoch 2: line 1: not valid JSON") {
		t.Errorf("bad member: %v", err)
	}
	if u := src.Unattributed(); len(u) != 1 || !strings.Contains(u[0], "log.eval: samples/junk.json: line 1: not valid JSON") {
		t.Errorf("unattributed %q", u)
	}
}

// Zip bombs and lies: a member declaring a huge size is refused unread; a
// member that inflates past what it declares is cut and fails its sample
// alone; members that together pass the total limit refuse the archive;
// so does a directory declaring more entries than allowed.
func TestEvalArchiveRefusesBombs(t *testing.T) {
	ctx := context.Background()
	big := bytes.Repeat([]byte(" "), 8<<20) // 8 MiB of spaces: deflates ~1000:1
	bomb := append([]byte(`{"id": 9, "epoch": 1, "scores": {"s": {"value": "C"}}}`), big...)
	t.Run("declared small, inflates large", func(t *testing.T) {
		path := writeEval(t, []member{{name: "header.json", data: evalHeader}, evalSample(1, 1, `"C"`),
			{name: "samples/9_epoch_1.json", raw: &rawMember{compressed: deflate(t, bomb), crc: crc32.ChecksumIEEE(bomb), uncompressed: 60, method: zip.Deflate}}})
		src, runs, err := LoadInspect(ctx, path, "s")
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 2 || !src.Covers("1", inspection.Deep) {
			t.Fatalf("runs %v", runs)
		}
		_, err = src.Inspect(ctx, inspection.Run{ID: "9"}, inspection.Deep)
		if err == nil || !strings.Contains(err.Error(), "samples/9_epoch_1.json: sample 9 epoch 1: cannot be read") ||
			!strings.Contains(err.Error(), "inflates past the 60 bytes it declares") {
			t.Errorf("bomb member: %v", err)
		}
	})
	t.Run("declared huge", func(t *testing.T) {
		path := writeEval(t, []member{{name: "header.json", data: evalHeader}, evalSample(1, 1, `"C"`),
			{name: "samples/9_epoch_1.json", raw: &rawMember{compressed: deflate(t, bomb), crc: crc32.ChecksumIEEE(bomb), uncompressed: 10 << 30, method: zip.Deflate}}})
		src, _, err := LoadInspect(ctx, path, "s")
		if err != nil {
			t.Fatal(err)
		}
		_, err = src.Inspect(ctx, inspection.Run{ID: "9"}, inspection.Deep)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("declares %d bytes uncompressed, more than the limit %d", 10<<30, MaxMemberBytes)) {
			t.Errorf("huge member: %v", err)
		}
	})
	t.Run("inflates past the member limit", func(t *testing.T) {
		path := writeEval(t, []member{{name: "header.json", data: evalHeader}, evalSample(1, 1, `"C"`),
			{name: "samples/9_epoch_1.json", raw: &rawMember{compressed: deflate(t, bomb), crc: crc32.ChecksumIEEE(bomb), uncompressed: uint64(len(bomb)), method: zip.Deflate}}})
		lim := defaultLimits
		lim.member = 1 << 20
		src, _, err := loadInspect(ctx, path, "s", Options{}, lim)
		if err != nil {
			t.Fatal(err)
		}
		_, err = src.Inspect(ctx, inspection.Run{ID: "9"}, inspection.Deep)
		if err == nil || !strings.Contains(err.Error(), "more than the limit 1048576") {
			t.Errorf("past the member limit: %v", err)
		}
	})
	t.Run("total", func(t *testing.T) {
		ms := []member{{name: "header.json", data: evalHeader}}
		for i := 1; i <= 4; i++ {
			s := append([]byte(fmt.Sprintf(`{"id": %d, "epoch": 1, "scores": {"s": {"value": "C"}}}`, i)), big[:1<<20]...)
			ms = append(ms, member{name: fmt.Sprintf("samples/%d_epoch_1.json", i), data: string(s)})
		}
		lim := defaultLimits
		lim.member, lim.total = 2<<20, 3<<20
		_, _, err := loadInspect(ctx, writeEval(t, ms), "s", Options{}, lim)
		if !errors.Is(err, errUncompressedTotal) || !strings.Contains(err.Error(), "samples/3_epoch_1.json") {
			t.Errorf("total: %v", err)
		}
	})
	t.Run("entries", func(t *testing.T) {
		ms := []member{{name: "header.json", data: evalHeader}}
		for i := 1; i <= 9; i++ {
			ms = append(ms, evalSample(i, 1, `"C"`))
		}
		lim := defaultLimits
		lim.members = 5
		_, _, err := loadInspect(ctx, writeEval(t, ms), "s", Options{}, lim)
		if err == nil || !strings.Contains(err.Error(), "declares 10 entries, more than the limit 5") {
			t.Errorf("entries: %v", err)
		}
	})
	t.Run("archive size", func(t *testing.T) {
		path := writeEval(t, []member{{name: "header.json", data: evalHeader}, evalSample(1, 1, `"C"`)})
		fi, _ := os.Stat(path)
		lim := defaultLimits
		lim.file = fi.Size() - 1
		_, _, err := loadInspect(ctx, path, "s", Options{}, lim)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("longer than %d bytes", lim.file)) {
			t.Errorf("archive size: %v", err)
		}
	})
}

// zstdFixture reads a member compressed by the reference zstd CLI
// (testdata/zstd/make.sh) as a raw member of method 93, its CRC and size
// those of the uncompressed data.
func zstdFixture(t *testing.T, name string, uncompressed []byte) *rawMember {
	t.Helper()
	z := readFixture(t, name)
	return &rawMember{compressed: z, crc: crc32.ChecksumIEEE(uncompressed), uncompressed: uint64(len(uncompressed)), method: zipZstandard}
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "zstd", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Zstandard members (inspect_ai with INSPECT_USE_ZSTD), compressed by
// the reference zstd CLI at its default level, at -19 without a
// checksum, and as two frames, read as the same members deflated do.
func TestEvalArchiveZstandard(t *testing.T) {
	names := []string{"header.json", "sample1.json", "sample2.json", "sample3.json"}
	var zstdMembers, deflateMembers []member
	for i, name := range names {
		data := readFixture(t, name)
		zipName := name
		if i > 0 {
			zipName = fmt.Sprintf("samples/%d_epoch_1.json", i)
		}
		zstdMembers = append(zstdMembers, member{name: zipName, raw: zstdFixture(t, name+".zst", data)})
		deflateMembers = append(deflateMembers, member{name: zipName, data: string(data)})
	}
	ctx := context.Background()
	zsrc, zruns, err := LoadInspect(ctx, writeEval(t, zstdMembers), "s")
	if err != nil {
		t.Fatal(err)
	}
	dsrc, druns, err := LoadInspect(ctx, writeEval(t, deflateMembers), "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(zruns) != 3 || len(druns) != 3 {
		t.Fatalf("runs %v and %v", zruns, druns)
	}
	for i := range zruns {
		if zruns[i].ID != druns[i].ID || zruns[i].System != druns[i].System || zruns[i].ContentHash != druns[i].ContentHash {
			t.Errorf("run %d: zstandard %+v, deflate %+v", i, zruns[i], druns[i])
		}
	}
	z, d := inspectAll(t, zsrc, zruns), inspectAll(t, dsrc, druns)
	if len(z) != 3 || fmt.Sprint(z) != fmt.Sprint(d) {
		t.Errorf("zstandard %v\ndeflate %v", z, d)
	}
	if z["1"].Verdict != "pass" || z["2"].Verdict != "fail" || z["3"].Verdict != "partial" {
		t.Errorf("verdicts %v", z)
	}
}

// A bad Zstandard member fails its sample alone, or the log when it is
// the header; the limits hold as for deflate; a frame asking for a
// window past zstdMaxWindow is refused, not read.
func TestEvalArchiveZstandardRefuses(t *testing.T) {
	ctx := context.Background()
	header := member{name: "header.json", data: evalHeader}
	inspect9 := func(t *testing.T, path string, lim limits) error {
		t.Helper()
		src, runs, err := loadInspect(ctx, path, "s", Options{}, lim)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 2 || !src.Covers("1", inspection.Deep) {
			t.Fatalf("runs %v", runs)
		}
		_, err = src.Inspect(ctx, inspection.Run{ID: "9"}, inspection.Deep)
		return err
	}
	t.Run("not a frame", func(t *testing.T) {
		path := writeEval(t, []member{header, evalSample(1, 1, `"C"`),
			{name: "samples/9_epoch_1.json", raw: &rawMember{compressed: []byte("\x28\xb5\x2f\xfd"), uncompressed: 10, method: zipZstandard}}})
		if err := inspect9(t, path, defaultLimits); err == nil || !strings.Contains(err.Error(), "samples/9_epoch_1.json") ||
			!strings.Contains(err.Error(), "zstandard") {
			t.Errorf("bad frame: %v", err)
		}
	})
	t.Run("header", func(t *testing.T) {
		path := writeEval(t, []member{{name: "header.json", raw: &rawMember{compressed: []byte("x"), uncompressed: 1, method: zipZstandard}}})
		if _, _, err := LoadInspect(ctx, path, ""); err == nil || !strings.Contains(err.Error(), "header.json") || !strings.Contains(err.Error(), "zstandard") {
			t.Errorf("bad header: %v", err)
		}
	})
	bomb := append([]byte(`{"id": 9, "epoch": 1, "scores": {"s": {"value": "C"}}}`), bytes.Repeat([]byte(" "), 8<<20)...)
	t.Run("declared small, inflates large", func(t *testing.T) {
		raw := zstdFixture(t, "bomb.zst", bomb)
		raw.uncompressed = 60
		path := writeEval(t, []member{header, evalSample(1, 1, `"C"`), {name: "samples/9_epoch_1.json", raw: raw}})
		if err := inspect9(t, path, defaultLimits); err == nil || !strings.Contains(err.Error(), "sample 9 epoch 1: cannot be read") ||
			!strings.Contains(err.Error(), "inflates past the 60 bytes it declares") {
			t.Errorf("bomb: %v", err)
		}
	})
	t.Run("inflates past the member limit", func(t *testing.T) {
		path := writeEval(t, []member{header, evalSample(1, 1, `"C"`), {name: "samples/9_epoch_1.json", raw: zstdFixture(t, "bomb.zst", bomb)}})
		lim := defaultLimits
		lim.member = 1 << 20
		if err := inspect9(t, path, lim); err == nil || !strings.Contains(err.Error(), "more than the limit 1048576") {
			t.Errorf("past the member limit: %v", err)
		}
		// Within the limits the same member is read whole.
		if err := inspect9(t, path, defaultLimits); err != nil {
			t.Errorf("the bomb within the limits: %v", err)
		}
	})
	t.Run("window", func(t *testing.T) {
		path := writeEval(t, []member{header, evalSample(1, 1, `"C"`),
			{name: "samples/9_epoch_1.json", raw: zstdFixture(t, "window.zst", readFixture(t, "sample1.json"))}})
		if err := inspect9(t, path, defaultLimits); err == nil || !strings.Contains(err.Error(), "zstandard: the frame asks for a window over the limit of 134217728 bytes") {
			t.Errorf("1 GiB window: %v", err)
		}
	})
}

// The shared inspect_ai .eval logs recompressed member by member by the
// zstd CLI (as inspect_ai writes them with INSPECT_USE_ZSTD) import as
// the originals do. Skipped without the shared samples or the CLI.
func TestEvalArchiveZstandardSharedLogs(t *testing.T) {
	zstdCLI, err := exec.LookPath("zstd")
	if err != nil {
		t.Skip("no zstd CLI")
	}
	for _, name := range []string{"custom.eval", "log_formats.eval", "log_read_sample.eval", "mmlu-summary-choices.eval"} {
		t.Run(name, func(t *testing.T) {
			orig := sharedLog(t, name)
			zr, err := zip.OpenReader(orig)
			if err != nil {
				t.Fatal(err)
			}
			defer zr.Close()
			var ms []member
			for _, f := range zr.File {
				rc, err := f.Open()
				if err != nil {
					t.Fatal(err)
				}
				data, err := io.ReadAll(rc)
				rc.Close()
				if err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command(zstdCLI, "-q", "-c", "-3")
				cmd.Stdin = bytes.NewReader(data)
				z, err := cmd.Output()
				if err != nil {
					t.Fatalf("zstd %s: %v", f.Name, err)
				}
				ms = append(ms, member{name: f.Name, raw: &rawMember{compressed: z, crc: crc32.ChecksumIEEE(data), uncompressed: uint64(len(data)), method: zipZstandard}})
			}
			ctx := context.Background()
			osrc, oruns, err := LoadInspect(ctx, orig, "")
			if err != nil {
				t.Fatal(err)
			}
			zsrc, zruns, err := LoadInspect(ctx, writeEval(t, ms), "")
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(ids(oruns)) != fmt.Sprint(ids(zruns)) || len(oruns) == 0 {
				t.Fatalf("runs %v, original %v", ids(zruns), ids(oruns))
			}
			o, z := inspectAll(t, osrc, oruns), inspectAll(t, zsrc, zruns)
			if len(o) == 0 || fmt.Sprint(o) != fmt.Sprint(z) {
				t.Errorf("zstandard %v\noriginal %v", z, o)
			}
		})
	}
}

func ids(runs []inspection.Run) []string {
	var out []string
	for _, r := range runs {
		out = append(out, r.ID+" "+r.System+" "+r.ContentHash)
	}
	return out
}

// An archive without header.json or _journal/start.json is no log.
func TestEvalArchiveWithoutHeader(t *testing.T) {
	path := writeEval(t, []member{evalSample(1, 1, `"C"`)})
	if _, _, err := LoadInspect(context.Background(), path, ""); err == nil || !strings.Contains(err.Error(), "not an inspect_ai .eval log") {
		t.Errorf("%v", err)
	}
}

// zipEntryCount reads the count of the end record, and of the ZIP64 end
// record when the archive has one.
func TestZipEntryCount(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := range 3 {
		w, _ := zw.Create(fmt.Sprint(i))
		w.Write([]byte("x"))
	}
	zw.SetComment(strings.Repeat("PK", 10))
	zw.Close()
	n, ok := zipEntryCount(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if !ok || n != 3 {
		t.Errorf("plain: %d %v", n, ok)
	}
	if _, ok := zipEntryCount(bytes.NewReader([]byte("not a zip")), 9); ok {
		t.Error("no end record found must be !ok")
	}
	// A ZIP64 archive: archive/zip writes the ZIP64 end records when an
	// entry is at least 4 GiB, which a test cannot afford; patch a plain
	// archive's end record to 0xFFFF entries and prepend the ZIP64 records
	// by hand (APPNOTE.TXT 4.3.14, 4.3.15).
	data := buf.Bytes()
	eocd := bytes.LastIndex(data, []byte("PK\x05\x06"))
	rec := make([]byte, 56)
	copy(rec, "PK\x06\x06")
	rec[32] = 0x40 // 0x1234540 entries
	rec[33] = 0x45
	rec[34] = 0x23
	rec[35] = 0x01
	loc := make([]byte, 20)
	copy(loc, "PK\x06\x07")
	recAt := uint64(eocd)
	for i := range 8 {
		loc[8+i] = byte(recAt >> (8 * i))
	}
	z64 := append(append(append(append([]byte{}, data[:eocd]...), rec...), loc...), data[eocd:]...)
	end := len(z64) - (len(data) - eocd)
	z64[end+10], z64[end+11] = 0xFF, 0xFF
	n, ok = zipEntryCount(bytes.NewReader(z64), int64(len(z64)))
	if !ok || n != 0x1234540 {
		t.Errorf("zip64: %x %v", n, ok)
	}
}

// Issue 27 (3): members whose headers declare 255 MiB each but hold 2
// bytes cost what they hold, not what they declare: 2,000 of them read in
// little memory and time, and each is refused as cut short.
func TestEvalArchiveLyingSizesAllocateNothing(t *testing.T) {
	ms := []member{{name: "header.json", data: evalHeader}}
	for i := 1; i <= 2000; i++ {
		ms = append(ms, member{name: fmt.Sprintf("samples/%d_epoch_1.json", i),
			raw: &rawMember{compressed: []byte("{}"), crc: crc32.ChecksumIEEE([]byte("{}")), uncompressed: 255 << 20, method: zip.Store}})
	}
	path := writeEval(t, ms)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	src, _, err := LoadInspect(context.Background(), path, "s")
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
		t.Errorf("allocated %d MiB reading a %d KiB archive", alloc>>20, archiveKiB(t, path))
	}
	if took > 20*time.Second {
		t.Errorf("took %v", took)
	}
	if err == nil {
		if _, ierr := src.Inspect(context.Background(), inspection.Run{ID: "1"}, inspection.Deep); ierr == nil {
			t.Errorf("a member holding 2 of its declared %d bytes was read as a sample", 255<<20)
		}
	}
}

func archiveKiB(t *testing.T, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size() >> 10
}
