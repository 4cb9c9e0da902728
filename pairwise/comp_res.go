package pairwise

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// compResName matches a comp_res result file, SYSA-SYSB_DIM.result or
// SYSA-SYSB_DIM_toggle.result.
var compResName = regexp.MustCompile(`^([^-_/]+)-([^-_/]+)_([A-Za-z0-9]+?)(_toggle)?\.result$`)

// compResChoice is the choice at the start of a longer response, as in
// "B: Summary #2 is more coherent.".
var compResChoice = regexp.MustCompile(`^([ABCabc])[\s.:]`)

// Deep is the deep side's winner of each pair, by pair id.
type Deep map[string]string

// ReadCompRes reads a comp_res directory of Shen et al. (2023): for each
// SYSA-SYSB_DIM.result (summary A is system SYSA's, B is SYSB's) and its
// SYSA-SYSB_DIM_toggle.result (the same pairs shown in the other order),
// one line a pair: {"id", "resp", "human_score_1", "human_score_2"}.
//
//   - The judge is "BASE/DIM", BASE the directory's name (the judge model);
//     the pair id is "DIM/SYSA-SYSB/ID"; run_a is "SYSA/ID", run_b "SYSB/ID".
//   - resp "A", "B" or "C" (or a sentence starting "A:", "B." ...) names
//     the first slot, the second, or a tie. In the plain file the first
//     slot is run_a (order ab), in the toggle file run_b (order ba), as the
//     upstream repository's calc_h2h_pairs.py reads them.
//   - The deep winner is a when human_score_1 > human_score_2 (the mean
//     expert scores of SYSA's and SYSB's summaries), b when smaller, tie
//     when equal; taken from the plain file. A toggle line whose scores
//     differ from the plain file's is a bad line.
//
// A result file without its toggle (or the reverse) is read as it is: its
// pairs have one order. Files are read in name order.
func ReadCompRes(ctx context.Context, dir string, lim Limits) ([]Verdict, Deep, []BadLine, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("pairwise: comp_res: %w", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && compResName.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil, nil, nil, fmt.Errorf("pairwise: comp_res: %s holds no SYSA-SYSB_DIM[_toggle].result file", dir)
	}
	sort.Strings(names)
	// Plain files first so that the toggle lines can be checked against
	// the plain file's human scores.
	sort.SliceStable(names, func(i, j int) bool {
		return !strings.HasSuffix(names[i], "_toggle.result") && strings.HasSuffix(names[j], "_toggle.result")
	})
	base := filepath.Base(filepath.Clean(dir))
	deep := Deep{}
	scores := map[string][2]float64{}
	var out []Verdict
	var bad []BadLine
	for _, name := range names {
		m := compResName.FindStringSubmatch(name)
		f := compResFile{sysA: m[1], sysB: m[2], dim: m[3], toggle: m[4] != "", judge: base + "/" + m[3],
			path: filepath.Join(dir, name)}
		vs, bl, err := f.read(ctx, lim, deep, scores)
		if err != nil {
			return nil, nil, nil, err
		}
		out = append(out, vs...)
		bad = append(bad, bl...)
	}
	return out, deep, bad, nil
}

// compResFile is one comp_res result file.
type compResFile struct {
	sysA, sysB, dim, judge, path string
	toggle                       bool
}

// compResLine is one line of a comp_res result file.
type compResLine struct {
	ID     *string  `json:"id"`
	Resp   *string  `json:"resp"`
	Human1 *float64 `json:"human_score_1"`
	Human2 *float64 `json:"human_score_2"`
}

// read reads the file's verdicts; plain files fill deep and scores, toggle
// files are checked against scores.
func (f compResFile) read(ctx context.Context, lim Limits, deep Deep, scores map[string][2]float64) ([]Verdict, []BadLine, error) {
	fh, err := os.Open(f.path)
	if err != nil {
		return nil, nil, fmt.Errorf("pairwise: comp_res: %w", err)
	}
	defer fh.Close()
	seen := map[string]bool{}
	var out []Verdict
	var bad []BadLine
	badf := func(n int, field, format string, a ...any) {
		bad = append(bad, BadLine{File: f.path, Line: n, Field: field, Error: fmt.Sprintf(format, a...)})
	}
	err = eachLine(ctx, fh, f.path, lim, &bad, func(n int, raw []byte) {
		var l compResLine
		if err := json.Unmarshal(raw, &l); err != nil {
			badf(n, "", "not a comp_res JSON object: %v", err)
			return
		}
		switch {
		case l.ID == nil || *l.ID == "":
			badf(n, "id", "missing")
			return
		case l.Resp == nil:
			badf(n, "resp", "missing")
			return
		case l.Human1 == nil:
			badf(n, "human_score_1", "missing")
			return
		case l.Human2 == nil:
			badf(n, "human_score_2", "missing")
			return
		case seen[*l.ID]:
			badf(n, "id", "%q appears twice in the file", *l.ID)
			return
		}
		slot, ok := compResSlot(*l.Resp)
		if !ok {
			badf(n, "resp", "%q names no summary (A, B or C)", truncate(*l.Resp, 60))
			return
		}
		pair := f.dim + "/" + f.sysA + "-" + f.sysB + "/" + *l.ID
		hs := [2]float64{*l.Human1, *l.Human2}
		if f.toggle {
			if prev, ok := scores[pair]; ok && prev != hs {
				badf(n, "human_score_1", "scores %v differ from the plain file's %v", hs, prev)
				return
			}
		} else {
			scores[pair] = hs
			deep[pair] = compare(hs[0], hs[1])
		}
		seen[*l.ID] = true
		v := Verdict{PairID: pair, RunA: f.sysA + "/" + *l.ID, RunB: f.sysB + "/" + *l.ID, Order: OrderAB, Judge: f.judge}
		if f.toggle {
			v.Order = OrderBA
		}
		v.Winner = slotWinner(slot, v.Order)
		out = append(out, v)
	})
	if err != nil {
		return nil, nil, err
	}
	return out, bad, nil
}

// compResSlot reads a response: 1 (first slot), 2 (second) or 0 (tie).
func compResSlot(resp string) (int, bool) {
	r := strings.TrimSpace(resp)
	if len(r) != 1 {
		m := compResChoice.FindStringSubmatch(r)
		if m == nil {
			return 0, false
		}
		r = m[1]
	}
	switch strings.ToUpper(r) {
	case "A":
		return 1, true
	case "B":
		return 2, true
	case "C":
		return 0, true
	}
	return 0, false
}

// slotWinner turns a slot (1 first, 2 second, 0 tie) shown in order into
// the winning run.
func slotWinner(slot int, order string) string {
	switch {
	case slot == 0:
		return WinnerTie
	case (slot == 1) == (order == OrderAB):
		return WinnerA
	}
	return WinnerB
}

// compare is the winner of scores x (run_a) and y (run_b): higher wins.
func compare(x, y float64) string {
	switch {
	case x > y:
		return WinnerA
	case x < y:
		return WinnerB
	}
	return WinnerTie
}

// truncate cuts s to at most n bytes, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "..."
}
