package llm

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/internal/judgeserver"
)

// TestParsePairAnswer reads the winner from the answers models write.
func TestParsePairAnswer(t *testing.T) {
	for _, c := range []struct {
		text, want string
	}{
		{`{"winner": "A", "reason": "it finished"}`, SlotFirst},
		{`{"winner": "b"}`, SlotSecond},
		{`{"winner": "tie", "reason": "same"}`, SlotTie},
		{"Here is my verdict:\n```json\n{\"winner\": \"Run B\", \"reason\": \"x\"}\n```", SlotSecond},
		{`Both are close. {"reason": "x", "winner" : "first"}`, SlotFirst},
		{"After comparing, my final verdict is [[A]].", SlotFirst},
		{"[[C]]", SlotTie},
		{"[[B]] because [[B]] finished", SlotSecond},
		{`{"winner": "Equal"}`, SlotTie},
	} {
		got, err := ParsePairAnswer(c.text)
		if err != nil || got != c.want {
			t.Errorf("%q: %q, %v; want %q", c.text, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "   ", "Run A looks better.", `{"winner": "C+"}`, `{"winner": 1}`, "[[A]] or maybe [[B]]", `{"verdict": "A"}`} {
		if got, err := ParsePairAnswer(bad); err == nil {
			t.Errorf("%q: %q, want an error", bad, got)
		}
	}
}

// FuzzParsePairAnswer: any answer gives a slot or an error, never a
// panic, and a slot is one of the three.
func FuzzParsePairAnswer(f *testing.F) {
	f.Add(`{"winner": "A"}`)
	f.Add("[[B]]")
	f.Add(`"winner": "`)
	f.Fuzz(func(t *testing.T, text string) {
		got, err := ParsePairAnswer(text)
		if err == nil && got != SlotFirst && got != SlotSecond && got != SlotTie {
			t.Fatalf("%q: slot %q", text, got)
		}
	})
}

// TestJudgePairBothOrdersThroughTheJudgeServer: the request is plain text
// (no structured output), shows both runs at deep depth, and the bundled
// judge server's answer is read back as a slot: an unbiased judge names
// the same run in both orders (so mirrored slots), a judge told to prefer
// the first slot names the first slot in both; every call is billed.
func TestJudgePairBothOrdersThroughTheJudgeServer(t *testing.T) {
	clean, placeholder := corpusRun(t, runClean), corpusRun(t, runPlaceholder)
	for _, c := range []struct {
		share     float64
		ab, ba    string
		provider  string
		wantCalls int64
	}{
		{0, SlotFirst, SlotSecond, OpenAI, 1},
		{1, SlotFirst, SlotFirst, OpenAI, 1},
		{0, SlotFirst, SlotSecond, Anthropic, 1},
	} {
		f := startServer(t, judgeserver.Options{FirstSlot: c.share})
		j := f.judge(t, c.provider, "judge-large")
		ab, cost, err := j.JudgePair(context.Background(), clean, placeholder)
		if err != nil {
			t.Fatal(err)
		}
		ba, _, err := j.JudgePair(context.Background(), placeholder, clean)
		if err != nil {
			t.Fatal(err)
		}
		if ab != c.ab || ba != c.ba {
			t.Errorf("%s share %v: %s then %s, want %s then %s", c.provider, c.share, ab, ba, c.ab, c.ba)
		}
		if cost.Usage == nil || cost.Usage.Calls != c.wantCalls || cost.Usage.Input <= 0 || cost.Tokens != cost.Usage.Input+cost.Usage.Output {
			t.Errorf("cost %+v", cost)
		}
		req := string(f.rec.all()[0].body)
		for _, want := range []string{"Pairwise comparison [pair ", "===== Run A =====", "===== Run B =====", "Depth: deep"} {
			if !strings.Contains(req, want) {
				t.Errorf("the request lacks %q", want)
			}
		}
		if strings.Contains(req, "json_schema") || strings.Contains(req, `"tool_choice"`) {
			t.Errorf("the pairwise request asks for structured output")
		}
		if j.PairIdentity() == j.Identity() || !strings.HasPrefix(j.PairIdentity(), j.Identity()+"/pairwise@") {
			t.Errorf("pair identity %q", j.PairIdentity())
		}
	}
}

// TestJudgePairMalformedAnswerIsAPermanentFailure: an answer naming no
// winner fails the call (no repair), with its usage kept.
func TestJudgePairMalformedAnswerIsAPermanentFailure(t *testing.T) {
	f := startServer(t, judgeserver.Options{})
	j := f.judge(t, OpenAI, "judge-mini+badjson")
	_, _, err := j.JudgePair(context.Background(), corpusRun(t, runClean), corpusRun(t, runPlaceholder))
	if err == nil || !inspection.IsPermanent(err) || !strings.Contains(err.Error(), "names no winner") {
		t.Fatalf("err %v", err)
	}
	if u, ok := inspection.UsageOf(err); !ok || u.Calls != 1 {
		t.Errorf("usage %+v %v", u, ok)
	}
	if n := f.srv.Requests(); n != 1 {
		t.Errorf("%d requests, want 1 (no repair)", n)
	}
}

// listingLine is a line of a run message's file listing.
var listingLine = regexp.MustCompile(`^- (\S+) \d+$`)

// TestShuffledFilesReordersTheListing: the order perturbation lists the
// run's files in another order than path order, the same one for the same
// seed, and its identity says so.
func TestShuffledFilesReordersTheListing(t *testing.T) {
	files := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		files["bindings/"+n+".md"] = "output " + n + "\n"
	}
	files["state.md"] = "1→ a ✓\n---end 2026-01-01T00:00:00Z\n"
	files["program.prose"] = "agent a\n"
	run := writeRun(t, files)
	run.ContentHash = "0123"
	listing := func(in interface {
		Inspect(context.Context, inspection.Run, inspection.Depth) (inspection.Inspection, error)
	}, f *fakeProvider) []string {
		t.Helper()
		if _, err := in.Inspect(context.Background(), run, inspection.Deep); err != nil {
			t.Fatal(err)
		}
		reqs := f.rec.all()
		body := string(reqs[len(reqs)-1].body)
		var paths []string
		for _, line := range strings.Split(strings.ReplaceAll(body, `\n`, "\n"), "\n") {
			if m := listingLine.FindStringSubmatch(line); m != nil {
				paths = append(paths, m[1])
			}
		}
		return paths
	}
	f := startServer(t, judgeserver.Options{})
	j := f.judge(t, OpenAI, "judge-mini")
	plain := listing(j, f)
	one := listing(ShuffledFiles(j, 1), f)
	again := listing(ShuffledFiles(j, 1), f)
	other := listing(ShuffledFiles(j, 2), f)
	if len(plain) != 10 || !slices.IsSorted(plain) {
		t.Fatalf("plain listing %q", plain)
	}
	if slices.Equal(one, plain) || !slices.Equal(one, again) || slices.Equal(one, other) {
		t.Errorf("listings: plain %q, seed 1 %q and %q, seed 2 %q", plain, one, again, other)
	}
	if sorted := slices.Sorted(slices.Values(one)); !slices.Equal(sorted, plain) {
		t.Errorf("shuffled listing %q holds other files than %q", one, plain)
	}
	if id := ShuffledFiles(j, 1).Identity(); id != j.Identity()+"/perturb=order@1" {
		t.Errorf("identity %q", id)
	}
}
