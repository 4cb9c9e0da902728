package inspection

// Consolidate turns the K repeated inspections of one run at one depth
// (--repeat K) into the one inspection the paired statistics use:
//
//   - verdict: the most frequent verdict among the repeats; a tie goes to
//     the strictest of the tied verdicts (fail < partial < pass), so a judge
//     that cannot make up its mind never passes a run on a coin flip;
//   - runtime_fidelity and task_effectiveness: the means over the repeats;
//   - flags, services and summary: those of the first repeat (in repeat
//     order) whose verdict is the consolidated one;
//   - cost: the sum over the repeats (token usage added up).
//
// One repeat is returned as it is. Consolidate of no repeats is the zero
// Inspection.
func Consolidate(repeats []Inspection) Inspection {
	switch len(repeats) {
	case 0:
		return Inspection{}
	case 1:
		return repeats[0]
	}
	var count [3]int
	var rf, te float64
	for _, r := range repeats {
		count[VerdictRank(r.Verdict)]++
		rf += r.RuntimeFidelity
		te += r.TaskEffectiveness
	}
	best := 0
	for k := 1; k < 3; k++ {
		if count[k] > count[best] {
			best = k
		}
	}
	verdict := [3]string{VerdictFail, VerdictPartial, VerdictPass}[best]
	var out Inspection
	for _, r := range repeats {
		if r.Verdict == verdict {
			out = r
			break
		}
	}
	n := float64(len(repeats))
	out.RuntimeFidelity, out.TaskEffectiveness = rf/n, te/n
	out.Cost = Cost{}
	var usage *Usage
	for _, r := range repeats {
		out.Cost.Seconds += r.Cost.Seconds
		out.Cost.Tokens += r.Cost.Tokens
		out.Cost.USD += r.Cost.USD
		if r.Cost.Usage != nil {
			u := r.Cost.Usage.Add(Usage{})
			if usage != nil {
				u = usage.Add(*r.Cost.Usage)
			}
			usage = &u
		}
	}
	out.Cost.Usage = usage
	return out
}
