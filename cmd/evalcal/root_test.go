package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// Hand-worked edit distances (Wagner-Fischer).
func TestLevenshteinHandWorked(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"format", "format", 0},
		{"kitten", "sitting", 3}, // k->s, e->i, +g
		{"flaw", "lawn", 2},      // -f, +n
		{"formt", "format", 1},   // +a
		{"fromat", "format", 2},  // r<->o is two substitutions
		{"bye", "by", 1},
		{"insp", "bins", 2}, // +b, -p
	} {
		if got := levenshtein(tt.a, tt.b); got != tt.want {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := levenshtein(tt.b, tt.a); got != tt.want {
			t.Errorf("levenshtein(%q, %q) = %d, want %d (symmetry)", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestSuggestFlags(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	for _, n := range []string{"format", "inspector", "inspections", "bins", "by", "require", "require-seals", "no-cache", "cache"} {
		fs.String(n, "", "")
	}
	fs.String("secret", "", "")
	_ = fs.MarkHidden("secret")
	for _, tt := range []struct {
		typed string
		want  string
	}{
		{"formt", "format"},
		{"fromat", "format"},
		{"insp", "inspector inspections"}, // prefixes, nearest first; "bins" is 2 edits from a 4-letter word: not suggested
		{"bye", "by"},
		{"require-seal", "require-seals"},
		{"no-cahce", "no-cache"},
		{"secrte", ""}, // hidden
		{"zzz", ""},
		{"help", ""},
	} {
		if got := strings.Join(suggestFlags(fs, tt.typed), " "); got != tt.want {
			t.Errorf("suggestFlags(%q) = %q, want %q", tt.typed, got, tt.want)
		}
	}
}

func TestRewriteLegacyFlags(t *testing.T) {
	root := newRootCmd(&factory{io: ioStreams{}})
	cmd, _, err := root.Find([]string{"score"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		in, want, legacy string
	}{
		{"-by team f.jsonl", "--by team f.jsonl", "by"},
		{"-format=json -by=team f", "--format=json --by=team f", "format by"},
		// Values are never touched, even when they look like flags.
		{"--baseline-rate -0.5 -by -format f", "--baseline-rate -0.5 --by -format f", "by"},
		{"-o -format f", "-o -format f", ""},
		{"--o r.yaml --o=s.yaml f", "--output r.yaml --output=s.yaml f", "o"},
		// Shorthand groups, attached values, stdin and unknown words pass.
		{"-ofile.yaml - -x -zzz", "-ofile.yaml - -x -zzz", ""},
		{"-strict -help", "--strict --help", "strict help"},
		// Nothing after "--".
		{"f -- -by x", "f -- -by x", ""},
	} {
		got, legacy := rewriteLegacyFlags(cmd, strings.Fields(tt.in))
		if strings.Join(got, " ") != tt.want || strings.Join(legacy, " ") != tt.legacy {
			t.Errorf("rewrite %q = %q (legacy %q), want %q (legacy %q)", tt.in, strings.Join(got, " "), legacy, tt.want, tt.legacy)
		}
	}
}

// The gh pattern: a test passes its own body to check parsing alone.
func TestRunOptionsFromFlagsAnywhere(t *testing.T) {
	t.Chdir(repoRoot(t))
	var got *runOptions
	f := &factory{io: ioStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}}
	c := newCmdRun(f, func(_ context.Context, o *runOptions) error { got = o; return nil })
	f.args = []string{"testdata/runs", "--jobs", "3", "-o", "r.json", "--sample=5", "testdata/more"}
	c.SetArgs(f.args)
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatal("the body was not called")
	}
	if strings.Join(got.Paths, " ") != "testdata/runs testdata/more" || got.Jobs != 3 || got.Sample != 5 ||
		got.Output.Path != "r.json" || got.Output.Format != "json" || got.Bins != 10 || got.Inspector != "builtin" {
		t.Errorf("options %+v", got)
	}
	if strings.Join(recordedArgs(got.args), " ") != "evalcal run testdata/runs --sample=5 testdata/more" {
		t.Errorf("recorded command line %v", recordedArgs(got.args))
	}
}

func TestSummariseListsTheFirstFive(t *testing.T) {
	var b bytes.Buffer
	summarise(&b, 0, "warning", "warnings", nil)
	if b.Len() != 0 {
		t.Errorf("nothing to summarise printed %q", b.String())
	}
	summarise(&b, 1, "warning", "warnings", []string{"one\n  two"})
	if want := "evalcal: 1 warning:\nevalcal:   one two\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	items := []string{"a", "b", "c", "d", "e", "f", "g"}
	summarise(&b, 12, "bad line", "bad_lines", items)
	want := "evalcal: 12 bad lines (the first 5; the document lists them under bad_lines):\n" +
		"evalcal:   a\nevalcal:   b\nevalcal:   c\nevalcal:   d\nevalcal:   e\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	long := strings.Repeat("é", 200) // 400 bytes
	if got := oneLine(long); len(got) > maxItemWidth+4 || !strings.HasSuffix(got, "é ...") {
		t.Errorf("oneLine cut %d bytes: ...%q", len(got), got[len(got)-10:])
	}
}
