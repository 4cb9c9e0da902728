package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRankSummEvalThroughTheCommand ranks the SummEval re-judged set's
// three LLM judges against its experts through evalcal rank, from saved
// inspections written from the files (rule as in rank/summeval_test.go:
// a judge's last "Score: N", pass at N >= 4, no score = no inspection;
// the experts' mean consistency >= 4 passes): each candidate's agreement
// equals the accuracy counted from the files, to the count.
func TestRankSummEvalThroughTheCommand(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "..", "shared", "real-judge-data", "summeval")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real data absent: %v", err)
	}
	tmp := t.TempDir()
	line := func(w *bufio.Writer, id, system, depth string, pass bool) {
		v, s := "fail", 20
		if pass {
			v, s = "pass", 85
		}
		fmt.Fprintf(w, `{"run_id":%q,"system":%q,"depth":%q,"runtime_fidelity":%d,"task_effectiveness":%d,"verdict":%q,"flags":[],"services":[],"summary":"","cost":{"seconds":0,"tokens":0,"usd":0}}`+"\n",
			id, system, depth, s, s, v)
	}
	deep := map[string]bool{}
	deepFile := filepath.Join(tmp, "experts.jsonl")
	df, _ := os.Create(deepFile)
	dw := bufio.NewWriter(df)
	anns, _ := filepath.Glob(filepath.Join(dir, "model_output_annotations", "M*_outputs_annotations.jsonl"))
	for _, path := range anns {
		system, _, _ := strings.Cut(filepath.Base(path), "_")
		eachLine(t, path, func(b []byte) {
			var r struct {
				ID      string                      `json:"id"`
				Experts []struct{ Consistency int } `json:"expert_annotations"`
			}
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			sum := 0
			for _, e := range r.Experts {
				sum += e.Consistency
			}
			deep[system+"/"+r.ID] = sum >= 12
			line(dw, system+"/"+r.ID, system, "deep", sum >= 12)
		})
	}
	dw.Flush()
	df.Close()
	score := regexp.MustCompile(`[Ss]core:\s*([1-5])`)
	args := []string{"rank", "--no-cache", "--quiet", "--format", "json", "--deep", "saved:" + deepFile}
	counted := map[string][2]int{}
	for _, judge := range []string{"gpt-4-0314", "llama-2-70b-chat-hf", "llama-2-7b-chat-hf"} {
		path := filepath.Join(tmp, judge+".jsonl")
		f, _ := os.Create(path)
		w := bufio.NewWriter(f)
		files, _ := filepath.Glob(filepath.Join(dir, "eval_model_generations", judge, "eval_M*_generations", "consistency_rts.txt"))
		for _, src := range files {
			system := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(filepath.Dir(src)), "eval_"), "_generations")
			eachLine(t, src, func(b []byte) {
				var r struct{ ID, Resp string }
				if err := json.Unmarshal(b, &r); err != nil {
					t.Fatalf("%s: %v", src, err)
				}
				m := score.FindAllStringSubmatch(r.Resp, -1)
				if m == nil {
					return
				}
				id, pass := system+"/"+r.ID, m[len(m)-1][1] >= "4"
				c := counted[judge]
				c[1]++
				if pass == deep[id] {
					c[0]++
				}
				counted[judge] = c
				line(w, id, system, "light", pass)
			})
		}
		w.Flush()
		f.Close()
		args = append(args, "--light", strings.ReplaceAll(judge, "-hf", "")+"=saved:"+path)
	}
	stdout, stderr, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	doc := rankDoc(t, stdout)
	if len(doc.Candidates) != 3 || counted["gpt-4-0314"] != [2]int{1087, 1184} {
		t.Fatalf("%d candidates; gpt-4 counted %v (Python: 1087 of 1184)", len(doc.Candidates), counted["gpt-4-0314"])
	}
	for _, c := range doc.Candidates {
		got, want := [2]int{c.Agree.Matches, c.Agree.N}, counted[c.Name+"-hf"]
		if c.Name == "gpt-4-0314" {
			want = counted[c.Name]
		}
		if got != want {
			t.Errorf("%s: agreement %v, counted from the files %v", c.Name, got, want)
		}
	}
	if doc.Summary.Use != "gpt-4-0314" {
		t.Errorf("use %s: %s", doc.Summary.Use, doc.Summary.Sentence)
	}
}

func eachLine(t *testing.T, path string, each func([]byte)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		each(l)
	}
}
