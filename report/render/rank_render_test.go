package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/rank"
)

// rankFixture ranks three candidates on 50 runs deep passed: cheap agrees
// on 45 ($0.5 per 1k runs), best on 50 ($3), bad on 20 ($1, beaten by
// cheap on both).
func rankFixture(t *testing.T) *rank.Document {
	t.Helper()
	mk := func(name string, wrong int, usd float64) rank.Input {
		in := rank.Input{Name: name, Spec: "exec:" + name, USDPer1k: &usd}
		for i := 0; i < 50; i++ {
			v := rank.Pass
			if i < wrong {
				v = rank.Fail
			}
			in.Outcomes = append(in.Outcomes, rank.Outcome{RunID: fmt.Sprintf("r%02d", i), Light: v, Deep: rank.Pass})
		}
		return in
	}
	doc, err := rank.Rank([]rank.Input{mk("cheap", 5, 0.5), mk("best", 0, 3), mk("bad", 30, 1)})
	if err != nil {
		t.Fatal(err)
	}
	doc.Inputs.Deep.Spec = "saved:labels.jsonl"
	return &doc
}

func TestRankMarkdownAnswersFirst(t *testing.T) {
	doc := rankFixture(t)
	md, err := RankMarkdown(doc)
	if err != nil {
		t.Fatal(err)
	}
	s := string(md)
	first, _, _ := strings.Cut(s, "\n")
	if first != "**"+doc.Summary.Sentence+"**" {
		t.Errorf("first line %q, want the sentence", first)
	}
	for _, want := range []string{"| best | 100.00% |", "| cheap | 90.00% |", "| bad | 40.00% |", "best vs cheap", "Pareto front", "best, cheap."} {
		if !strings.Contains(s, want) {
			t.Errorf("markdown lacks %q:\n%s", want, s)
		}
	}
	for _, line := range strings.Split(s, "\n") {
		onFront := strings.HasSuffix(line, "| front |")
		switch {
		case strings.HasPrefix(line, "| bad |") && onFront:
			t.Errorf("bad is on the front: %s", line)
		case (strings.HasPrefix(line, "| best |") || strings.HasPrefix(line, "| cheap |")) && !onFront:
			t.Errorf("not on the front: %s", line)
		}
	}
}

func TestRankHTMLDrawsTheChart(t *testing.T) {
	html, err := RankHTML(rankFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	s := string(html)
	for _, want := range []string{"<svg", "agreement with deep against cost", "USD per 1,000 runs", ">cheap<", ">best<", ">bad<"} {
		if !strings.Contains(s, want) {
			t.Errorf("html lacks %q", want)
		}
	}
	again, _ := RankHTML(rankFixture(t))
	if string(again) != s {
		t.Error("the same document renders differently")
	}
}
