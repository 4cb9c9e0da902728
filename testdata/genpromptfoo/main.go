// Command genpromptfoo writes promptfoo's JSON Lines output (`promptfoo
// eval -o FILE.jsonl`: one EvaluateResult a line, no version) of N
// results, for the import scale benchmark
// (testdata/bench/scale/importers.sh): N/2 tests on two prompts, each
// result with two assertions' component results, `contains` (a score of
// 1 or 0) and `llm-rubric` with metric `quality` (a graded score with
// its grader's tokens); about 1% of the results failed with an error
// (failureReason 2, no gradingResult). The fields and their order follow
// the real output in programs/importers/testdata/promptfoo (see its
// README.md), trimmed (no token-usage details, promptId, testCase.assert or
// response token usage) so that a line is about
// 1 KB and a million results stay under the importers' 1 GiB file limit
// (programs/importers.MaxFileBytes). The values come from math/rand/v2
// seeded with -seed; the same flags give the same bytes.
//
//	go run ./testdata/genpromptfoo -n 100000 -seed 1 > /tmp/out.jsonl
//	evalcal run --light 'promptfoo:/tmp/out.jsonl#contains' --deep 'promptfoo:/tmp/out.jsonl#llm-rubric'
//
// Exit status: 0 done, 1 write failed, 2 bad flags.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/evalcal/evalcal/testdata/gencmd"
)

func main() { gencmd.Main("genpromptfoo", "results to write (one a line)", write) }

type tokens struct {
	Total      int `json:"total"`
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
}

type assertion struct {
	Type   string `json:"type"`
	Value  string `json:"value"`
	Metric string `json:"metric,omitempty"`
}

type component struct {
	Pass       bool      `json:"pass"`
	Score      float64   `json:"score"`
	Reason     string    `json:"reason"`
	TokensUsed *tokens   `json:"tokensUsed,omitempty"`
	Assertion  assertion `json:"assertion"`
}

type grading struct {
	Pass             bool        `json:"pass"`
	Score            float64     `json:"score"`
	Reason           string      `json:"reason"`
	TokensUsed       tokens      `json:"tokensUsed"`
	ComponentResults []component `json:"componentResults"`
}

type prompt struct {
	Raw   string `json:"raw"`
	Label string `json:"label"`
}

type provider struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

type response struct {
	Output string `json:"output"`
	Cached bool   `json:"cached"`
}

type testCase struct {
	Vars map[string]string `json:"vars"`
}

// result is an EvaluateResult, its fields in the order of promptfoo's
// JSON Lines output.
type result struct {
	Cost          float64            `json:"cost"`
	Error         string             `json:"error,omitempty"`
	GradingResult *grading           `json:"gradingResult,omitempty"`
	ID            string             `json:"id"`
	LatencyMs     int                `json:"latencyMs"`
	NamedScores   map[string]float64 `json:"namedScores"`
	Prompt        prompt             `json:"prompt"`
	PromptIdx     int                `json:"promptIdx"`
	Provider      provider           `json:"provider"`
	Response      *response          `json:"response,omitempty"`
	Score         float64            `json:"score"`
	Success       bool               `json:"success"`
	TestCase      testCase           `json:"testCase"`
	TestIdx       int                `json:"testIdx"`
	Vars          map[string]string  `json:"vars"`
	Metadata      map[string]any     `json:"metadata"`
	FailureReason int                `json:"failureReason"`
}

var (
	labels = []string{"Answer briefly: {{question}}", "You are terse. {{question}}"}
	cities = []string{"Paris", "Rome", "Madrid", "Berlin", "Vienna", "Lisbon"}
)

// write prints n results to w, result i being test i/2 on prompt i%2.
// The contains assertion agrees with the rubric's pass about 80% of the
// time.
func write(w io.Writer, n int, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range n {
		if err := enc.Encode(makeResult(r, i)); err != nil {
			return fmt.Errorf("writing result %d: %w", i, err)
		}
	}
	return nil
}

// makeResult draws result i.
func makeResult(r *rand.Rand, i int) result {
	test, p := i/2, i%2
	city := cities[r.IntN(len(cities))]
	question := fmt.Sprintf("Name the capital of country %d.", test)
	raw := labels[p][:len(labels[p])-len("{{question}}")] + question
	answer := city
	asserts := []assertion{{Type: "contains", Value: city}, {Type: "llm-rubric", Value: "Names the right capital", Metric: "quality"}}
	res := result{
		ID:        fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), r.Uint64()>>16),
		LatencyMs: 20 + r.IntN(2000), Prompt: prompt{Raw: raw, Label: labels[p]}, PromptIdx: p,
		Provider: provider{ID: "openai:gpt-4o-mini", Label: ""}, TestIdx: test,
		TestCase: testCase{Vars: map[string]string{"question": question}},
		Vars:     map[string]string{"question": question}, Metadata: map[string]any{}, NamedScores: map[string]float64{},
	}
	if r.Float64() < 0.01 {
		res.Error, res.FailureReason = "API error: 429 Too Many Requests", 2
		return res
	}
	if r.Float64() < 0.3 {
		answer = cities[r.IntN(len(cities))]
	}
	res.Response = &response{Output: "The capital is " + answer + "."}
	contains := component{Pass: answer == city, Reason: "Assertion passed", Assertion: asserts[0]}
	if contains.Pass {
		contains.Score = 1
	} else {
		contains.Reason = fmt.Sprintf("Expected output to contain %q", city)
	}
	k := r.IntN(50) // the rubric's score in hundredths: a fail, or
	if contains.Pass == (r.Float64() < 0.8) {
		k = 70 + r.IntN(31) // a pass, mostly where contains passes
	}
	rubric := float64(k) / 100
	gt := tokens{Prompt: 200 + r.IntN(100), Completion: 20 + r.IntN(30)}
	gt.Total = gt.Prompt + gt.Completion
	rub := component{Pass: rubric >= 0.5, Score: rubric, Reason: "The output names " + answer + ".", TokensUsed: &gt, Assertion: asserts[1]}
	res.Score = (100*contains.Score + float64(k)) / 200 // the mean of the two
	res.Success = contains.Pass && rub.Pass
	reason := "All assertions passed"
	if !res.Success {
		reason = contains.Reason
		if contains.Pass {
			reason = rub.Reason
		}
		res.Error, res.FailureReason = reason, 1
	}
	res.NamedScores = map[string]float64{"quality": rubric}
	res.GradingResult = &grading{Pass: res.Success, Score: res.Score, Reason: reason, TokensUsed: gt,
		ComponentResults: []component{contains, rub}}
	return res
}
