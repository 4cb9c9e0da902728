package runner

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalcal/evalcal/inspection"
)

// referenceInspections are the inspections of
// testdata/cacheformat/make_entries.py, by case name.
func referenceInspections() map[string]inspection.Inspection {
	return map[string]inspection.Inspection{
		"builtin": {RunID: "20300101-000003-000003", System: "flaky-test-hunt", Depth: inspection.Deep,
			RuntimeFidelity: 85, TaskEffectiveness: 62.5,
			Services: []inspection.Service{{Name: "bisect", Status: "completed"}, {Name: "owners", Status: "errored"}},
			Flags: []inspection.Flag{{ID: "placeholder-output", Severity: inspection.SeverityWarning, Description: "a binding holds placeholder text",
				Evidence: "bindings/owners.md: \"TODO\" — é"}},
			Verdict: inspection.VerdictPartial, Summary: "2 flags; partial", Cost: inspection.Cost{Seconds: 0.25, Tokens: 2382}},
		"llm-nil-lists": {RunID: "r1", Depth: inspection.Light, RuntimeFidelity: 0, TaskEffectiveness: 100,
			Services: nil, Flags: []inspection.Flag{}, Verdict: inspection.VerdictFail,
			Cost: inspection.Cost{Seconds: 1.5e-3, Tokens: 300, USD: 0.000125, Usage: &inspection.Usage{Model: "judge-mini", Calls: 2,
				Input: 200, Output: 100, CachedInput: 64, Missing: true}}},
	}
}

// The entry layout is checked against bytes written from the documented
// layout by an independent implementation: Python 3.11.7, standard
// library (hashlib, struct), testdata/cacheformat/make_entries.py.
func TestCacheEntryMatchesTheDocumentedLayout(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "cacheformat", "entries.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name        string           `json:"name"`
		Identity    string           `json:"identity"`
		Depth       inspection.Depth `json:"depth"`
		ContentHash string           `json:"content_hash"`
		EntryHex    string           `json:"entry_hex"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	insps := referenceInspections()
	if len(cases) != len(insps) {
		t.Fatalf("%d reference cases, want %d", len(cases), len(insps))
	}
	for _, c := range cases {
		want, err := hex.DecodeString(c.EntryHex)
		if err != nil {
			t.Fatal(err)
		}
		insp := insps[c.Name]
		got, err := encodeEntry(CacheKey(c.Identity, c.Depth, c.ContentHash), c.Identity, c.Depth, c.ContentHash, insp)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: entry\n got %x\nwant %x", c.Name, got, want)
		}
		// And the reference bytes read back as the inspection, served.
		cache, err := OpenCache(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		writeEntry(t, cache.path(CacheKey(c.Identity, c.Depth, c.ContentHash)), want)
		back, ok, err := cache.Lookup(c.Identity, c.Depth, c.ContentHash)
		if !ok || err != nil {
			t.Fatalf("%s: lookup of the reference entry: ok %v err %v", c.Name, ok, err)
		}
		if d := cmp.Diff(insp, back); d != "" {
			t.Errorf("%s: read back (-want +got):\n%s", c.Name, d)
		}
	}
}

func writeEntry(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Put then Lookup gives back exactly what was stored: nil and empty lists
// apart, -0, the extremes of int64, strings that are not UTF-8 (which a
// JSON entry replaced with U+FFFD).
func TestCacheRoundTripIsExact(t *testing.T) {
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cases := []inspection.Inspection{
		{Depth: inspection.Light, Verdict: inspection.VerdictPass},
		{Depth: inspection.Light, Verdict: inspection.VerdictPass, Services: []inspection.Service{}, Flags: nil, RuntimeFidelity: math.Copysign(0, -1)},
		{RunID: "x\xff\xfe", System: "s\x00y", Depth: inspection.Deep, Verdict: inspection.VerdictFail, RuntimeFidelity: 100, TaskEffectiveness: 1e-300,
			Services: []inspection.Service{{}, {Name: strings.Repeat("n", 300), Status: "ok"}},
			Flags:    []inspection.Flag{{ID: "a", Severity: inspection.SeverityCritical, Description: "\n\t\"", Evidence: strings.Repeat("é", 10000)}},
			Summary:  "line\nline", Cost: inspection.Cost{Seconds: 12.5, Tokens: math.MaxInt64, USD: 3.25,
				Usage: &inspection.Usage{Model: "m", Calls: math.MaxInt64, Input: 1 << 40, Output: 1, CachedInput: 0, Reasoning: 7}}},
	}
	for i, in := range cases {
		hash := strings.Repeat("ab", 32)[:i+1]
		if err := cache.Put("id", in.Depth, hash, in); err != nil {
			t.Fatalf("case %d: put: %v", i, err)
		}
		got, ok, err := cache.Lookup("id", in.Depth, hash)
		if !ok || err != nil {
			t.Fatalf("case %d: ok %v err %v", i, ok, err)
		}
		if d := cmp.Diff(in, got); d != "" {
			t.Errorf("case %d (-put +got):\n%s", i, d)
		}
		if math.Signbit(in.RuntimeFidelity) != math.Signbit(got.RuntimeFidelity) {
			t.Errorf("case %d: the sign of -0 was lost", i)
		}
	}
}

func TestCachePutRefusesFiguresNoDocumentCanHold(t *testing.T) {
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []inspection.Inspection{
		{Depth: inspection.Light, Verdict: inspection.VerdictPass, RuntimeFidelity: math.NaN()},
		{Depth: inspection.Light, Verdict: inspection.VerdictPass, Cost: inspection.Cost{USD: math.Inf(1)}},
		{Depth: inspection.Light, Verdict: inspection.VerdictPass, Cost: inspection.Cost{Seconds: math.Inf(-1)}},
	} {
		if err := cache.Put("id", inspection.Light, "h", in); err == nil || !strings.Contains(err.Error(), "not a finite number") {
			t.Errorf("put of %+v: %v, want an error", in, err)
		}
	}
	if n, err := cache.Len(); n != 0 || err != nil {
		t.Errorf("%d entries (%v) after refused puts, want none", n, err)
	}
}

// Every truncation and every single-byte change of an entry is a miss,
// never a panic and never a hit; all but a changed format byte are
// reported.
func TestCacheNeverServesADamagedEntry(t *testing.T) {
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	in := referenceInspections()["llm-nil-lists"]
	if err := cache.Put("id", inspection.Light, "h", in); err != nil {
		t.Fatal(err)
	}
	p := cache.path(CacheKey("id", inspection.Light, "h"))
	good, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, data []byte, wantErr bool) {
		t.Helper()
		writeEntry(t, p, data)
		_, ok, err := cache.Lookup("id", inspection.Light, "h")
		if ok || (err != nil) != wantErr {
			t.Errorf("%s: ok %v err %v, want a miss (reported: %v)", what, ok, err, wantErr)
		}
	}
	for n := range len(good) {
		check("truncated to "+strconv.Itoa(n)+" bytes", good[:n], true)
	}
	check("one byte more", append(append([]byte(nil), good...), 0), true)
	for i := range good {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			bad := append([]byte(nil), good...)
			bad[i] ^= x
			check("byte "+strconv.Itoa(i)+" ^ "+strconv.Itoa(int(x)), bad, i != len(entryMagic)-1)
		}
	}
}

// An entry moved under another key (a stray file, a collision) is not
// served: the key parts it holds are checked.
func TestCacheEntryUnderAnotherKeyIsNotServed(t *testing.T) {
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	in := referenceInspections()["builtin"]
	if err := cache.Put("builtin/1", inspection.Deep, "aaaa", in); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(cache.path(CacheKey("builtin/1", inspection.Deep, "aaaa")))
	if err != nil {
		t.Fatal(err)
	}
	writeEntry(t, cache.path(CacheKey("builtin/1", inspection.Deep, "bbbb")), data)
	if _, ok, err := cache.Lookup("builtin/1", inspection.Deep, "bbbb"); ok || err == nil || !strings.Contains(err.Error(), "holds another key") {
		t.Errorf("ok %v err %v, want a miss: holds another key", ok, err)
	}
}

// formatTwoEntry is a JSON entry as evalcal wrote them before format 3,
// built here from that format's documentation (cacheEntry), not by the
// code under test.
func formatTwoEntry(t *testing.T, identity string, depth inspection.Depth, hash string, inspection string) []byte {
	t.Helper()
	key := CacheKey(identity, depth, hash)
	sum := sha256.Sum256([]byte(key + "\x00" + inspection))
	data, err := json.Marshal(map[string]any{"format": 2, "identity": identity, "depth": depth, "content_hash": hash,
		"inspection": json.RawMessage(inspection), "checksum": hex.EncodeToString(sum[:])})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A cache written by an earlier evalcal keeps serving: a format-2 entry
// is read, served, and replaced by a format-3 entry.
func TestCacheServesAndUpgradesAFormatTwoEntry(t *testing.T) {
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const insp = `{"run_id":"r1","system":"s","depth":"deep","runtime_fidelity":90,"task_effectiveness":75.5,` +
		`"services":[{"name":"a","status":"completed"}],"flags":[{"id":"f","severity":"info","description":"d","evidence":"e"}],` +
		`"verdict":"pass","summary":"ok","cost":{"seconds":1.5,"tokens":10,"usd":0}}`
	want := inspection.Inspection{RunID: "r1", System: "s", Depth: inspection.Deep, RuntimeFidelity: 90, TaskEffectiveness: 75.5,
		Services: []inspection.Service{{Name: "a", Status: "completed"}}, Flags: []inspection.Flag{{ID: "f", Severity: "info", Description: "d", Evidence: "e"}}, Verdict: inspection.VerdictPass,
		Summary: "ok", Cost: inspection.Cost{Seconds: 1.5, Tokens: 10}}
	key := CacheKey("builtin/1", inspection.Deep, "h")
	old := filepath.Join(cache.Dir(), key[:2], key+".json")
	writeEntry(t, old, formatTwoEntry(t, "builtin/1", inspection.Deep, "h", insp))
	if n, _ := cache.Len(); n != 1 {
		t.Errorf("Len %d with one format-2 entry, want 1", n)
	}
	for i := range 2 {
		got, ok, err := cache.Lookup("builtin/1", inspection.Deep, "h")
		if !ok || err != nil {
			t.Fatalf("lookup %d: ok %v err %v", i, ok, err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("lookup %d (-want +got):\n%s", i, d)
		}
		if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("lookup %d: the format-2 entry is still there (%v)", i, err)
		}
		if _, err := os.Stat(cache.path(key)); err != nil {
			t.Errorf("lookup %d: no format-3 entry: %v", i, err)
		}
	}
}

// A format-2 entry is checked as before: an edited one is reported and
// not served (and not upgraded).
func TestCacheDoesNotServeAnEditedFormatTwoEntry(t *testing.T) {
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const insp = `{"run_id":"r1","depth":"light","runtime_fidelity":90,"task_effectiveness":80,"verdict":"pass"}`
	data := formatTwoEntry(t, "f", inspection.Light, "h", insp)
	data = bytes.Replace(data, []byte(`"verdict":"pass"`), []byte(`"verdict":"fail"`), 1)
	key := CacheKey("f", inspection.Light, "h")
	writeEntry(t, filepath.Join(cache.Dir(), key[:2], key+".json"), data)
	if _, ok, err := cache.Lookup("f", inspection.Light, "h"); ok || err == nil || !strings.Contains(err.Error(), "checksum does not match") {
		t.Errorf("ok %v err %v, want a miss: checksum does not match", ok, err)
	}
	if _, err := os.Stat(cache.path(key)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an edited entry was upgraded (%v)", err)
	}
}

// An entry of a later format is a plain miss: replaced, not reported.
func TestCacheEntryOfAnotherFormatIsAPlainMiss(t *testing.T) {
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := cache.Put("f", inspection.Light, "h", inspection.Inspection{Depth: inspection.Light, Verdict: inspection.VerdictPass}); err != nil {
		t.Fatal(err)
	}
	p := cache.path(CacheKey("f", inspection.Light, "h"))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	data[len(entryMagic)-1] = cacheFormat + 1
	writeEntry(t, p, data)
	if _, ok, err := cache.Lookup("f", inspection.Light, "h"); ok || err != nil {
		t.Errorf("ok %v err %v, want a plain miss", ok, err)
	}
}

// FuzzDecodeEntry: decoding never panics, and an entry it accepts encodes
// back to an entry that decodes to the same inspection.
func FuzzDecodeEntry(f *testing.F) {
	for name, in := range referenceInspections() {
		data, err := encodeEntry(CacheKey("id", in.Depth, name), "id", in.Depth, name, in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("evcinsp\x03"))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := decodeEntry(data)
		if err != nil {
			return
		}
		if checkFinite(e.insp) != nil {
			return
		}
		again, err := encodeEntry(CacheKey(e.identity, e.depth, e.contentHash), e.identity, e.depth, e.contentHash, e.insp)
		if err != nil {
			t.Fatal(err)
		}
		back, err := decodeEntry(again)
		if err != nil {
			t.Fatalf("re-encoded entry does not decode: %v", err)
		}
		if d := cmp.Diff(e.insp, back.insp, cmp.Comparer(func(a, b float64) bool {
			return math.Float64bits(a) == math.Float64bits(b)
		})); d != "" {
			t.Errorf("(-decoded +re-decoded):\n%s", d)
		}
	})
}
