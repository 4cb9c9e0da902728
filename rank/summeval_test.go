package rank

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// summevalDir is the SummEval re-judged set (see the shared data's README):
// three LLM judges and three experts rating the same 1,200 summaries.
const summevalDir = "../../shared/real-judge-data/summeval"

// judgeScore is the mapping rule of the real-data test: a judge's score is
// the last "Score: N" (N in 1..5, "Final score: 5." and "Score: 2/5"
// alike) in its answer; an answer without one is a failed inspection (no
// verdict). A summary passes consistency when the judge's score is >= 4;
// deep (the experts) passes it when the mean of the three experts'
// consistency ratings is >= 4.
var judgeScore = regexp.MustCompile(`[Ss]core:\s*([1-5])`)

func readJSONLines(t *testing.T, path string, each func(line []byte)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		each(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestSummEvalJudgesAgainstExperts ranks the three judges of the SummEval
// re-judged set against the experts: every candidate's agreement equals
// the accuracy counted directly from the files, and the counts equal those
// a Python count of the same rule gave (gpt-4-0314 1,087 of 1,184,
// llama-2-70b-chat 503 of 771, llama-2-7b-chat 766 of 971).
func TestSummEvalJudgesAgainstExperts(t *testing.T) {
	if _, err := os.Stat(summevalDir); err != nil {
		t.Skipf("real data absent: %v", err)
	}
	deep := map[string]bool{}
	anns, _ := filepath.Glob(filepath.Join(summevalDir, "model_output_annotations", "M*_outputs_annotations.jsonl"))
	for _, path := range anns {
		system, _, _ := strings.Cut(filepath.Base(path), "_")
		readJSONLines(t, path, func(line []byte) {
			var r struct {
				ID      string `json:"id"`
				Experts []struct {
					Consistency int `json:"consistency"`
				} `json:"expert_annotations"`
			}
			if err := json.Unmarshal(line, &r); err != nil || len(r.Experts) != 3 {
				t.Fatalf("%s: %v (%d experts)", path, err, len(r.Experts))
			}
			sum := 0
			for _, e := range r.Experts {
				sum += e.Consistency
			}
			deep[system+"/"+r.ID] = sum >= 12
		})
	}
	if len(deep) != 1200 {
		t.Fatalf("%d expert-rated summaries, want 1200", len(deep))
	}
	want := map[string][2]int{"gpt-4-0314": {1087, 1184}, "llama-2-70b-chat-hf": {503, 771}, "llama-2-7b-chat-hf": {766, 971}}
	var in []Input
	direct := map[string][2]int{}
	for judge := range want {
		c := Input{Name: judge, Spec: "saved:" + judge}
		files, _ := filepath.Glob(filepath.Join(summevalDir, "eval_model_generations", judge, "eval_M*_generations", "consistency_rts.txt"))
		for _, path := range files {
			system := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(filepath.Dir(path)), "eval_"), "_generations")
			readJSONLines(t, path, func(line []byte) {
				var r struct{ ID, Resp string }
				if err := json.Unmarshal(line, &r); err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				m := judgeScore.FindAllStringSubmatch(r.Resp, -1)
				if m == nil {
					return
				}
				id := system + "/" + r.ID
				lightPass := m[len(m)-1][1] >= "4"
				d, ok := deep[id]
				if !ok {
					t.Fatalf("%s: %s has no expert rating", path, id)
				}
				counts := direct[judge]
				counts[1]++
				if lightPass == d {
					counts[0]++
				}
				direct[judge] = counts
				c.Outcomes = append(c.Outcomes, Outcome{RunID: id, Light: verdictOf(lightPass), Deep: verdictOf(d)})
			})
		}
		in = append(in, c)
	}
	doc, err := Rank(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range doc.Candidates {
		got := [2]int{c.Agree.Matches, c.Agree.N}
		if got != direct[c.Name] || got != want[c.Name] {
			t.Errorf("%s: agreement %v, counted from the files %v, by Python %v", c.Name, got, direct[c.Name], want[c.Name])
		}
	}
	if doc.Candidates[0].Name != "gpt-4-0314" || doc.Summary.Use != "gpt-4-0314" {
		t.Errorf("best %s, use %s; want gpt-4-0314 (91.8%% against 65.2%% and 78.9%%)", doc.Candidates[0].Name, doc.Summary.Use)
	}
	t.Log(doc.Summary.Sentence)
}

func verdictOf(pass bool) int8 {
	if pass {
		return Pass
	}
	return Fail
}
