package inspection

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMetadataFromJSONKeepsFlatValuesAsWritten(t *testing.T) {
	md, skipped, err := MetadataFromJSON([]byte(` {"task":"t17","n":3,"p":0.250,"big":1e3,"ok":true,"no":false,"gone":null,
		"nested":{"a":1},"list":[1,2],"esc":"a\"b"} `))
	if err != nil {
		t.Fatal(err)
	}
	want := Metadata{"task": "t17", "n": "3", "p": "0.250", "big": "1e3", "ok": "true", "no": "false", "esc": `a"b`}
	if d := cmp.Diff(want, md); d != "" {
		t.Errorf("metadata (-want +got):\n%s", d)
	}
	wantSkip := []MetadataSkip{{"list", "an array"}, {"nested", "an object"}}
	if d := cmp.Diff(wantSkip, skipped); d != "" {
		t.Errorf("skipped (-want +got):\n%s", d)
	}
	if got := skipped[0].String(); got != "metadata.list is an array; metadata values are strings, numbers or booleans: skipped" {
		t.Errorf("skip message %q", got)
	}
}

func TestMetadataFromJSONRefusesWhatIsNoObject(t *testing.T) {
	for _, raw := range []string{"", "null", "  "} {
		if md, sk, err := MetadataFromJSON([]byte(raw)); md != nil || sk != nil || err != nil {
			t.Errorf("%q: %v %v %v, want nothing", raw, md, sk, err)
		}
	}
	for _, raw := range []string{`"x"`, `3`, `[1]`} {
		if _, _, err := MetadataFromJSON([]byte(raw)); !errors.Is(err, ErrMetadataNotObject) {
			t.Errorf("%q: %v, want ErrMetadataNotObject", raw, err)
		}
	}
	if _, _, err := MetadataFromJSON([]byte(`{"a":`)); err == nil {
		t.Error("truncated object: no error")
	}
}

func TestMergeMetadataKeepsTheFirstValue(t *testing.T) {
	got, conflicts := MergeMetadata(Metadata{"a": "1", "b": "x"}, Metadata{"a": "2", "b": "x", "c": "y"})
	if d := cmp.Diff(Metadata{"a": "1", "b": "x", "c": "y"}, got); d != "" {
		t.Errorf("merged (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{`a: "1" and "2"`}, conflicts); d != "" {
		t.Errorf("conflicts (-want +got):\n%s", d)
	}
	if got, c := MergeMetadata(nil, nil); got != nil || c != nil {
		t.Errorf("nil+nil: %v %v", got, c)
	}
}

func TestFieldAnswersSystemFromTheRun(t *testing.T) {
	md := Metadata{"system": "shadowed", "task": "t1"}
	for _, c := range []struct {
		system, name, want string
		ok                 bool
	}{{"alpha", "system", "alpha", true}, {"", "system", "", false}, {"alpha", "task", "t1", true}, {"alpha", "x", "", false}} {
		if v, ok := Field(c.system, md, c.name); v != c.want || ok != c.ok {
			t.Errorf("Field(%q, %q) = %q %v, want %q %v", c.system, c.name, v, ok, c.want, c.ok)
		}
	}
}

func FuzzMetadataFromJSON(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":{"b":[1]}}`, `null`, `{"a":"\u00e9"}`, `{"a":1e999}`, `[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		md, skipped, err := MetadataFromJSON(raw)
		if err != nil && (md != nil || skipped != nil) {
			t.Fatalf("error %v with results %v %v", err, md, skipped)
		}
	})
}
