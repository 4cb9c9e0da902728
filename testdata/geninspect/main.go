// Command geninspect writes an inspect_ai eval log (.json, one EvalLog
// document with a `samples` array) of N samples, for the import scale
// benchmark (testdata/bench/scale/importers.sh). Each sample has two
// scorers: scorer_a, a cheap match scorer (C or I, with the answer), and
// scorer_b, a model-graded one (C, P or I, or a number in [0, 1], with an
// explanation), a short transcript (the user's and the assistant's messages),
// the model's output, and flat metadata; a few samples have an
// error or were halted by a limit. The document is indented by two
// spaces, as inspect_ai writes its .json logs (the shape follows the real
// logs of inspect_ai's tests; see programs/importers/inspect_test.go). A
// sample is about 1 KB, so that a million samples stay under the
// importers' 1 GiB file limit (programs/importers.MaxFileBytes). The
// values come from math/rand/v2 seeded with -seed; the same flags give
// the same bytes.
//
//	go run ./testdata/geninspect -n 100000 -seed 1 > /tmp/log.json
//	evalcal run --light 'inspect:/tmp/log.json#scorer_a' --deep 'inspect:/tmp/log.json#scorer_b'
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

func main() { gencmd.Main("geninspect", "samples to write", write) }

// message is a ChatMessage of the transcript.
type message struct {
	Content string `json:"content"`
	Source  string `json:"source,omitempty"`
	Role    string `json:"role"`
}

type choice struct {
	Message    message `json:"message"`
	StopReason string  `json:"stop_reason"`
}

type output struct {
	Model   string   `json:"model"`
	Choices []choice `json:"choices"`
}

// score is a Score; Value is a string or a number.
type score struct {
	Value       any    `json:"value"`
	Answer      string `json:"answer,omitempty"`
	Explanation string `json:"explanation,omitempty"`
}

type evalError struct {
	Message   string `json:"message"`
	Traceback string `json:"traceback"`
}

type limit struct {
	Type  string `json:"type"`
	Limit int    `json:"limit"`
}

// sample is an EvalSample, its fields in inspect_ai's order.
type sample struct {
	ID       string           `json:"id"`
	Epoch    int              `json:"epoch"`
	Input    string           `json:"input"`
	Target   string           `json:"target"`
	Messages []message        `json:"messages"`
	Output   output           `json:"output"`
	Scores   map[string]score `json:"scores"`
	Metadata map[string]any   `json:"metadata"`
	Error    *evalError       `json:"error,omitempty"`
	Limit    *limit           `json:"limit,omitempty"`
}

var (
	topics  = []string{"geography", "arithmetic", "chemistry", "history", "law", "biology"}
	answers = []string{"Paris", "42", "sodium chloride", "1815", "habeas corpus", "mitochondria", "Lyon", "7"}
	grades  = []any{"C", "P", "I"}
)

// header is the log's top level before the samples (eval, plan,
// results, stats), indented as inspect_ai writes it.
const header = `{
  "version": 2,
  "status": "success",
  "eval": {
    "eval_id": "gEnErAtEdEvAlId0000000",
    "run_id": "gEnErAtEdRuNiD00000000",
    "created": "2026-12-02T08:00:00+00:00",
    "task": "generated",
    "task_id": "gEnErAtEdTaSkId0000000",
    "task_version": 0,
    "task_file": "testdata/geninspect",
    "task_attribs": {},
    "task_args": {},
    "dataset": {
      "name": "generated",
      "location": "generated",
      "samples": %[1]d,
      "shuffled": false
    },
    "model": "openai/gpt-4o-mini",
    "model_generate_config": {},
    "model_args": {},
    "config": {
      "epochs": 1,
      "epochs_reducer": [
        "mean"
      ],
      "fail_on_error": false,
      "log_samples": true
    },
    "packages": {
      "inspect_ai": "0.3.95"
    },
    "scorers": [
      {
        "name": "scorer_a",
        "options": {},
        "metrics": [
          {
            "name": "inspect_ai/accuracy",
            "options": {}
          }
        ],
        "metadata": {}
      },
      {
        "name": "scorer_b",
        "options": {},
        "metrics": [
          {
            "name": "inspect_ai/mean",
            "options": {}
          }
        ],
        "metadata": {}
      }
    ]
  },
  "plan": {
    "name": "plan",
    "steps": [
      {
        "solver": "system_message",
        "params": {}
      },
      {
        "solver": "generate",
        "params": {}
      }
    ],
    "config": {}
  },
  "results": {
    "total_samples": %[1]d,
    "completed_samples": %[1]d,
    "scores": [
      {
        "name": "scorer_a",
        "scorer": "scorer_a",
        "params": {},
        "metrics": {}
      },
      {
        "name": "scorer_b",
        "scorer": "scorer_b",
        "params": {},
        "metrics": {}
      }
    ]
  },
  "stats": {
    "started_at": "2026-12-02T08:00:00+00:00",
    "completed_at": "2026-12-02T09:00:00+00:00",
    "model_usage": {}
  },
  "samples": [`

// write prints the log of n samples to w. scorer_a agrees with scorer_b's
// verdict about 80% of the time; about 1% of the samples have an error
// and 1% were halted by a limit.
func write(w io.Writer, n int, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	if _, err := fmt.Fprintf(w, header, n); err != nil {
		return fmt.Errorf("writing the header: %w", err)
	}
	for i := range n {
		s := makeSample(r, i)
		b, err := json.MarshalIndent(s, "    ", "  ")
		if err != nil {
			return fmt.Errorf("sample %d: %w", i, err)
		}
		sep := ",\n    "
		if i == 0 {
			sep = "\n    "
		}
		if _, err := io.WriteString(w, sep); err != nil {
			return fmt.Errorf("writing sample %d: %w", i, err)
		}
		if _, err := w.Write(b); err != nil {
			return fmt.Errorf("writing sample %d: %w", i, err)
		}
	}
	if _, err := io.WriteString(w, "\n  ]\n}\n"); err != nil {
		return fmt.Errorf("writing the end: %w", err)
	}
	return nil
}

// makeSample draws sample i.
func makeSample(r *rand.Rand, i int) sample {
	topic := topics[r.IntN(len(topics))]
	target := answers[r.IntN(len(answers))]
	answer := target
	if r.Float64() < 0.3 {
		answer = answers[r.IntN(len(answers))]
	}
	question := fmt.Sprintf("Question %d (%s): answer in one word.", i, topic)
	s := sample{
		ID: fmt.Sprintf("s%07d", i), Epoch: 1, Input: question, Target: target,
		Messages: []message{
			{Content: question, Source: "input", Role: "user"},
			{Content: answer, Source: "generate", Role: "assistant"},
		},
		Output: output{Model: "gpt-4o-mini", Choices: []choice{{Message: message{Content: answer, Source: "generate", Role: "assistant"},
			StopReason: "stop"}}},
		Metadata: map[string]any{"topic": topic, "difficulty": 1 + r.IntN(5), "label_confidence": float64(r.IntN(1000)) / 1000},
	}
	deep := grades[r.IntN(len(grades))]
	if answer == target {
		deep = "C"
	}
	var b any = deep
	if r.Float64() < 0.25 { // a graded number instead of a letter
		b = float64(r.IntN(101)) / 100
	}
	a := "I"
	if deep == "C" {
		a = "C"
	}
	if r.Float64() < 0.2 {
		a = []string{"C", "I"}[r.IntN(2)]
	}
	s.Scores = map[string]score{
		"scorer_a": {Value: a, Answer: answer},
		"scorer_b": {Value: b, Explanation: "target: " + target},
	}
	switch x := r.Float64(); {
	case x < 0.01:
		s.Error = &evalError{Message: "RuntimeError: the model provider timed out", Traceback: "Traceback (most recent call last): ..."}
	case x < 0.02:
		s.Limit = &limit{Type: "token", Limit: 4096}
	}
	return s
}
