package importers

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/evalcal/evalcal/inspection"
)

// referenceClean is cleanReader's rewriting done the plain way, on the
// whole input at once: the independent reference of FuzzCleanReader.
func referenceClean(in []byte) []byte {
	in = bytes.TrimPrefix(in, []byte{0xEF, 0xBB, 0xBF})
	var out []byte
	inString, escaped := false, false
	for i := 0; i < len(in); i++ {
		b := in[i]
		if inString {
			out = append(out, b)
			if escaped {
				escaped = false
			} else if b == '\\' {
				escaped = true
			} else if b == '"' {
				inString = false
			}
			continue
		}
		replaced := false
		for _, tok := range []string{"NaN", "Infinity", "-Infinity"} {
			if bytes.HasPrefix(in[i:], []byte(tok)) {
				out = append(out, "null"...)
				i += len(tok) - 1
				replaced = true
				break
			}
		}
		if replaced {
			continue
		}
		if b == '"' {
			inString = true
		}
		out = append(out, b)
	}
	return out
}

func cleanAll(t testing.TB, r io.Reader) []byte {
	out, err := io.ReadAll(newCleanReader(r))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Tokens cut across reads, strings holding the tokens, escapes and a
// byte-order mark: the streaming cleaner agrees with the reference,
// read one byte at a time or whole.
func TestCleanReader(t *testing.T) {
	for _, in := range []string{
		`{"a": NaN, "b": -Infinity, "c": Infinity, "d": -1.5}`,
		`["NaN", "a\"NaN", "\\", NaN]`,
		"\uFEFF[NaN]",
		`[-Inf`,
		`[Na`,
		"{\n\"x\": NaN,\n\"y\": \"NaN\"\n}",
	} {
		want := referenceClean([]byte(in))
		if got := cleanAll(t, iotest.OneByteReader(bytes.NewReader([]byte(in)))); !bytes.Equal(got, want) {
			t.Errorf("%q one byte at a time: %q, want %q", in, got, want)
		}
		if got := cleanAll(t, bytes.NewReader([]byte(in))); !bytes.Equal(got, want) {
			t.Errorf("%q whole: %q, want %q", in, got, want)
		}
	}
	if got := string(referenceClean([]byte(`{"a": NaN, "b": "NaN"}`))); got != `{"a": null, "b": "NaN"}` {
		t.Errorf("reference: %s", got)
	}
}

// LineAt counts the newlines before an offset of the cleaned stream.
func TestCleanReaderLineAt(t *testing.T) {
	c := newCleanReader(bytes.NewReader([]byte("a\nNaN\n\nb")))
	out, _ := io.ReadAll(c)
	if string(out) != "a\nnull\n\nb" {
		t.Fatalf("%q", out)
	}
	for _, q := range []struct {
		off  int64
		line int
	}{{0, 1}, {1, 1}, {2, 2}, {6, 2}, {7, 3}, {8, 4}, {9, 4}} {
		if got := c.LineAt(q.off); got != q.line {
			t.Errorf("LineAt(%d) = %d, want %d", q.off, got, q.line)
		}
	}
}

func FuzzCleanReader(f *testing.F) {
	f.Add([]byte(`{"a": NaN, "b": "Na\"N", "c": [-Infinity, Infinity]}`))
	f.Add([]byte("\uFEFF-Inf"))
	f.Add([]byte("{\n  \"a\\\n\": [\n    NaN,\n    \"x\\\"\\\\\"\n  ],\n  \"b\": -1\n}\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		want := referenceClean(in)
		if got := cleanAll(t, iotest.OneByteReader(bytes.NewReader(in))); !bytes.Equal(got, want) {
			t.Fatalf("one byte at a time: %q, want %q", got, want)
		}
		if got := cleanAll(t, iotest.HalfReader(bytes.NewReader(in))); !bytes.Equal(got, want) {
			t.Fatalf("half reads: %q, want %q", got, want)
		}
		if bytes.Count(want, []byte("\n")) != bytes.Count(in, []byte("\n")) {
			t.Fatal("newlines changed")
		}
		// Every offset of the output is on the line its newlines say.
		c := newCleanReader(iotest.HalfReader(bytes.NewReader(in)))
		if _, err := io.ReadAll(c); err != nil {
			t.Fatal(err)
		}
		line := 1
		for off := range len(want) + 1 {
			if got := c.LineAt(int64(off)); got != line {
				t.Fatalf("LineAt(%d) = %d, want %d", off, got, line)
			}
			if off < len(want) && want[off] == '\n' {
				line++
			}
		}
	})
}

// checkSource asserts what every successful load must give: runs sorted
// and unique, and for each an inspection that passes CheckInspection or
// a permanent error.
func checkSource(t *testing.T, src *Source, runs []inspection.Run) {
	t.Helper()
	for i, r := range runs {
		if i > 0 && runs[i-1].ID >= r.ID {
			t.Fatalf("runs not sorted and unique: %q then %q", runs[i-1].ID, r.ID)
		}
		insp, err := src.Inspect(context.Background(), r, inspection.Deep)
		if err != nil {
			if !inspection.IsPermanent(err) {
				t.Fatalf("run %s: not permanent: %v", r.ID, err)
			}
			continue
		}
		if err := inspection.CheckInspection(insp); err != nil {
			t.Fatalf("run %s: %v (%+v)", r.ID, err, insp)
		}
	}
}

func FuzzInspectJSON(f *testing.F) {
	f.Add([]byte(logJSON("t", 2, sample("1", 1, `{"s": {"value": "C"}}`), sample(`"x"`, 2, `{"s": {"value": {"a": NaN}}}`))))
	f.Add([]byte(`{"eval": {"task": "t"}, "samples": [{"id": 1, "epoch": 1, "score": {"value": 0.5}, "error": "e", "limit": "time"}]}`))
	if data, err := os.ReadFile(filepath.Join(sharedSamples, "2025-05-12T20-28-13-04-00_popularity.json")); err == nil {
		f.Add(data)
	}
	lim := defaultLimits
	lim.file = 1 << 20
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, scorer := range []string{"", "s", "s.a"} {
			log := &inspectLog{path: "fuzz.json"}
			if err := log.readJSON(context.Background(), bytes.NewReader(data), lim); err != nil {
				return
			}
			src, runs, err := log.source(scorer, Options{})
			if err != nil {
				continue
			}
			checkSource(t, src, runs)
		}
	})
}

func FuzzInspectEval(f *testing.F) {
	for _, name := range []string{"log_formats.eval", "mmlu-summary-choices.eval"} {
		if data, err := os.ReadFile(filepath.Join(sharedSamples, name)); err == nil {
			f.Add(data)
		}
	}
	f.Add(zstdEvalSeed(f))
	dir := f.TempDir()
	lim := limits{file: 1 << 20, member: 1 << 20, total: 4 << 20, members: 64}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "fuzz.eval")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		fh, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		log := &inspectLog{path: path}
		if err := log.readEval(context.Background(), fh, bufio.NewReader(fh), lim); err != nil {
			return
		}
		if src, runs, err := log.source("", Options{}); err == nil {
			checkSource(t, src, runs)
		}
	})
}

// zstdEvalSeed is a .eval log of Zstandard members: testdata/zstd's
// header and samples, compressed by the zstd CLI.
func zstdEvalSeed(f *testing.F) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i, name := range []string{"header.json", "sample1.json", "sample2.json", "sample3.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "zstd", name))
		if err != nil {
			f.Fatal(err)
		}
		z, err := os.ReadFile(filepath.Join("testdata", "zstd", name+".zst"))
		if err != nil {
			f.Fatal(err)
		}
		zipName := name
		if i > 0 {
			zipName = fmt.Sprintf("samples/%d_epoch_1.json", i)
		}
		w, err := zw.CreateRaw(&zip.FileHeader{Name: zipName, Method: zipZstandard, CRC32: crc32.ChecksumIEEE(data),
			CompressedSize64: uint64(len(z)), UncompressedSize64: uint64(len(data))})
		if err != nil {
			f.Fatal(err)
		}
		if _, err := w.Write(z); err != nil {
			f.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		f.Fatal(err)
	}
	return buf.Bytes()
}

func FuzzPromptfoo(f *testing.F) {
	if data, err := os.ReadFile(twoAssertions); err == nil {
		f.Add(data)
	}
	f.Add([]byte(pfFile("3", pfResult(0, 0, `"success": true, "score": 1, "failureReason": 2, "error": "x"`))))
	lim := defaultLimits
	lim.file = 1 << 20
	f.Add([]byte(`{"testIdx": 0, "promptIdx": 1, "provider": {"id": "echo"}, "success": true, "score": 1}` + "\n" +
		`{"testIdx": 1, "promptIdx": 0, "success": false, "score": 0, "gradingResult": {"pass": false, "score": 0, "reason": "r"}}{"testIdx": 2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, assertion := range []string{"", "contains", "quality"} {
			// The same bytes as the JSON output and as JSON Lines.
			for _, jsonl := range []bool{false, true} {
				pf := &promptfooFile{path: "fuzz.json"}
				read := pf.read
				if jsonl {
					read = pf.readLines
				}
				if err := read(context.Background(), bufio.NewReader(bytes.NewReader(data)), lim); err != nil {
					continue
				}
				if src, runs, err := pf.source(assertion, Options{}); err == nil {
					checkSource(t, src, runs)
				}
			}
		}
	})
}

func FuzzInspectValue(f *testing.F) {
	for _, v := range []string{`"C"`, `0.5`, `{"a": "P"}`, `[1]`, `null`, `"1e-3"`, `true`, `7`} {
		f.Add(v, "", "")
		f.Add(v, "a", "")
		f.Add(v, "", "?max=10,C=0.5")
	}
	f.Fuzz(func(t *testing.T, value, key, options string) {
		_, opts, err := ParseSelector(inspectDialect, options)
		if err != nil {
			return
		}
		x, kind, err := inspectValue([]byte(value), key, opts)
		if err == nil && (kind == valued || kind == noAnswer) && !(x >= 0 && x <= 1) {
			t.Fatalf("%q#%q maps to %v", value, key, x)
		}
	})
}

// ParseSelector never panics, and what it accepts is within the ranges
// its documentation states and prints back to the same options.
func FuzzParseSelector(f *testing.F) {
	for _, s := range []string{"match", "match?P=0,N=0.5,max=10", "?pass=0.5,fail=0.2", "a??", "x?max=0", "x?fail=0.9", "x?C=1,C=0"} {
		f.Add("inspect", s)
		f.Add("promptfoo", s)
	}
	f.Fuzz(func(t *testing.T, kind, selector string) {
		if kind != "inspect" && kind != "promptfoo" {
			return
		}
		name, opts, err := ParseSelector(dialectOf(kind), selector)
		if err != nil {
			return
		}
		pass, fail := opts.thresholds(dialectOf(kind))
		if len(name) > len(selector) || !(opts.Max >= 0) || !(fail >= 0 && fail <= pass && pass <= 1) {
			t.Fatalf("%s %q: name %q, options %+v", kind, selector, name, opts)
		}
		for v, x := range opts.Values {
			if !(x >= 0 && x <= 1) {
				t.Fatalf("%s %q: %s=%v", kind, selector, v, x)
			}
		}
		if text := opts.String(); text != "" {
			_, again, err := ParseSelector(dialectOf(kind), "?"+text)
			if err != nil || again.String() != text {
				t.Fatalf("%s %q: options %q parse back to %q (%v)", kind, selector, text, again.String(), err)
			}
		}
	})
}
