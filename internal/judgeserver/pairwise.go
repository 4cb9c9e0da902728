package judgeserver

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A pairwise message (programs/llm's pairwise layout) opens with a line
// "Pairwise comparison [pair TAG]: ..." and separates its two runs with
// lines "===== Run A ===== [pair TAG]", "===== Run B ===== [pair TAG]" and
// "===== End of the runs ===== [pair TAG]"; run A is the run shown first.
var pairHeader = regexp.MustCompile(`^Pairwise comparison (\[pair [0-9a-f]{16}\])`)

// pairView is the two runs of a pairwise message, in the order shown.
type pairView struct {
	first, second string // each run's message
}

// parsePairMessage splits a pairwise message into its two run messages;
// ok is false when msg is not one.
func parsePairMessage(msg string) (pairView, bool) {
	head, rest, _ := strings.Cut(msg, "\n")
	m := pairHeader.FindStringSubmatch(head)
	if m == nil {
		return pairView{}, false
	}
	tag := m[1]
	var v pairView
	var cur *string
	var b strings.Builder
	for _, line := range strings.Split(rest, "\n") {
		switch line {
		case "===== Run A ===== " + tag:
			cur = &v.first
			b.Reset()
			continue
		case "===== Run B ===== " + tag, "===== End of the runs ===== " + tag:
			if cur != nil {
				*cur = b.String()
			}
			cur = nil
			if strings.HasPrefix(line, "===== Run B") {
				cur = &v.second
			}
			b.Reset()
			continue
		}
		if cur != nil {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return v, v.first != "" && v.second != ""
}

// merit is a run's worth to model: the sum of the inspection's two scores.
func merit(model, msg string) float64 {
	ans := inspect(model, parseRunMessage(msg), salt(model, msg))
	rf, _ := ans["runtime_fidelity"].(float64)
	te, _ := ans["task_effectiveness"].(float64)
	return rf + te
}

// judgePair is the answer to a pairwise message: with probability
// firstSlot (decided by a hash of the conversation, so the same request
// always gets the same answer, and the two orders of a pair are decided
// independently) the run shown first wins whatever it is ("A"); otherwise
// the run of the higher merit wins, a tie when they are equal.
func judgePair(model string, v pairView, conv [32]byte, firstSlot float64) map[string]any {
	a, b := merit(model, v.first), merit(model, v.second)
	winner, why := "tie", fmt.Sprintf("both runs score %g", a)
	switch {
	case firstSlot > 0 && unitHash("first-slot", conv) < firstSlot:
		winner, why = "A", "run A is shown first"
	case a > b:
		winner, why = "A", fmt.Sprintf("run A scores %g, run B %g", a, b)
	case b > a:
		winner, why = "B", fmt.Sprintf("run B scores %g, run A %g", b, a)
	}
	return map[string]any{"winner": winner, "reason": model + ": " + why + "."}
}

// unitHash maps (kind, conv) to [0, 1).
func unitHash(kind string, conv [32]byte) float64 {
	h := sha256.New()
	h.Write([]byte(kind))
	h.Write(conv[:])
	u := binary.LittleEndian.Uint64(h.Sum(nil)[:8])
	return float64(u>>11) / float64(1<<53)
}

// ParseFirstSlot reads a first-slot share "first=S" (a model-name
// suffix), 0 <= S <= 1.
func ParseFirstSlot(s string) (float64, bool, error) { return parseShare("first=", s) }

// ParseOrderShare reads an order-sensitivity share "order=S" (a
// model-name suffix), 0 <= S <= 1.
func ParseOrderShare(s string) (float64, bool, error) { return parseShare("order=", s) }

// parseShare reads PREFIX and a share in [0, 1]; ok is false when s
// does not start with prefix.
func parseShare(prefix, s string) (float64, bool, error) {
	v, ok := strings.CutPrefix(s, prefix)
	if !ok {
		return 0, false, nil
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || !(x >= 0 && x <= 1) {
		return 0, true, fmt.Errorf("judgeserver: %q: the share must be in [0, 1]", s)
	}
	return x, true, nil
}

// orderSensitive plants an order-sensitive judge (run --perturb order):
// when the run message lists the run's files out of path order, a share
// of the runs (decided by a hash of the sorted listing, so the same runs
// whatever the shuffle) gets the opposite verdict: pass becomes fail with
// scores 30 and 20, fail or partial becomes pass with 80 and 75.
func orderSensitive(ans map[string]any, v runView, share float64) map[string]any {
	paths := make([]string, 0, len(v.listing))
	for _, l := range v.listing {
		paths = append(paths, l.path)
	}
	if share <= 0 || slices.IsSorted(paths) {
		return ans
	}
	slices.Sort(paths)
	if unitHash("order", sha256.Sum256([]byte(strings.Join(paths, "\x00")))) >= share {
		return ans
	}
	if ans["verdict"] == "pass" {
		ans["verdict"], ans["runtime_fidelity"], ans["task_effectiveness"] = "fail", 30.0, 20.0
	} else {
		ans["verdict"], ans["runtime_fidelity"], ans["task_effectiveness"] = "pass", 80.0, 75.0
	}
	return ans
}
