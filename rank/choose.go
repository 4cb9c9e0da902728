package rank

import (
	"fmt"
	"strconv"
	"strings"
)

// Cost axes (Summary.CostAxis).
const (
	AxisUSD     = "usd_per_1k_runs"
	AxisSeconds = "seconds_per_1k_runs"
	AxisNone    = "none"
)

// costAxis is USD when every candidate has a USD cost, else seconds when
// every one has a time, else none: candidates are only compared on a cost
// all of them have.
func costAxis(cs []Candidate) string {
	usd, sec := true, true
	for _, c := range cs {
		usd = usd && c.Cost.USDPer1k != nil
		sec = sec && c.Cost.SecondsPer1k != nil
	}
	switch {
	case usd:
		return AxisUSD
	case sec:
		return AxisSeconds
	}
	return AxisNone
}

// costOn is c's cost on axis, nil on AxisNone.
func costOn(c Candidate, axis string) *float64 {
	switch axis {
	case AxisUSD:
		return c.Cost.USDPer1k
	case AxisSeconds:
		return c.Cost.SecondsPer1k
	}
	return nil
}

// holmP returns the Holm-adjusted p of the pair a, b (1 when not tested).
func holmP(pairs []Pair, a, b string) float64 {
	for _, p := range pairs {
		if (p.A == a && p.B == b) || (p.A == b && p.B == a) {
			return p.HolmP
		}
	}
	return 1
}

// groups partitions the candidates (best first) into tie groups: the best
// candidate left and every candidate left that its Holm-adjusted test does
// not separate from it (HolmP >= Alpha) form a group; repeat on the rest.
// A candidate with no agreement (no run) is a group of its own, last.
func groups(cs []Candidate, pairs []Pair) []Group {
	left := make([]Candidate, len(cs))
	copy(left, cs)
	var out []Group
	for len(left) > 0 {
		best := left[0]
		g := Group{Rank: len(out) + 1, Best: best.Name, Members: []string{best.Name}}
		rest := left[:0:0]
		for _, c := range left[1:] {
			if best.Agree.Percent != nil && c.Agree.Percent != nil && holmP(pairs, best.Name, c.Name) >= Alpha {
				g.Members = append(g.Members, c.Name)
			} else {
				rest = append(rest, c)
			}
		}
		out = append(out, g)
		left = rest
	}
	return out
}

// pareto lists, in the candidates' order, those no other candidate beats
// on both agreement and cost (at least as good on both and better on one).
// On AxisNone only agreement counts: the candidates with the highest.
// A candidate with no agreement is never on the front.
func pareto(cs []Candidate, axis string) []string {
	out := []string{}
	for _, x := range cs {
		if x.Agree.Percent == nil {
			continue
		}
		beaten := false
		for _, y := range cs {
			if y.Name == x.Name || y.Agree.Percent == nil {
				continue
			}
			ax, ay := *x.Agree.Percent, *y.Agree.Percent
			cx, cy := costOn(x, axis), costOn(y, axis)
			if axis == AxisNone {
				beaten = beaten || ay > ax
				continue
			}
			if ay >= ax && *cy <= *cx && (ay > ax || *cy < *cx) {
				beaten = true
			}
		}
		if !beaten {
			out = append(out, x.Name)
		}
	}
	return out
}

// choose returns the candidate to use: the cheapest of the top tie group on
// the cost axis (ties to the better agreement, i.e. the group's order), or
// the best when no cost is known.
func choose(doc Document) (use Candidate, best Candidate) {
	byName := map[string]Candidate{}
	for _, c := range doc.Candidates {
		byName[c.Name] = c
	}
	top := doc.Groups[0]
	best = byName[top.Best]
	use = best
	axis := doc.Summary.CostAxis
	if axis == AxisNone {
		return use, best
	}
	for _, name := range top.Members[1:] {
		if c := byName[name]; *costOn(c, axis) < *costOn(use, axis) {
			use = c
		}
	}
	return use, best
}

// sentence is summary.sentence: which candidate to use, first, and why.
func sentence(doc Document) (string, string) {
	use, best := choose(doc)
	if best.Agree.Percent == nil {
		return "", "No candidate has a run with both verdicts: nothing to choose from (see the warnings)."
	}
	axis := doc.Summary.CostAxis
	top := doc.Groups[0]
	agree := func(c Candidate) string {
		return fmt.Sprintf("%s%% of %d runs", strconv.FormatFloat(*c.Agree.Percent, 'f', 1, 64), c.Agree.N)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Use %s: ", use.Name)
	switch {
	case len(top.Members) == 1:
		fmt.Fprintf(&b, "it agrees most with deep (%s) and the Holm-adjusted tests separate it from every other candidate", agree(use))
		if axis != AxisNone {
			fmt.Fprintf(&b, "; it costs %s per 1k runs", costText(use, axis))
		}
	case use.Name == best.Name && axis == AxisNone:
		fmt.Fprintf(&b, "it agrees most with deep (%s); no test separates it from %s, and no cost is known for every candidate to choose the cheapest",
			agree(use), others(top.Members, use.Name))
	case use.Name == best.Name:
		fmt.Fprintf(&b, "it agrees most with deep (%s) and is also the cheapest of the %d candidates no test separates from it, at %s per 1k runs",
			agree(use), len(top.Members), costText(use, axis))
	default:
		fmt.Fprintf(&b, "no test separates it from the best, %s (%s against %s; Holm-adjusted p = %s), and it is the cheapest of the %d candidates tied at the top, at %s per 1k runs against %s",
			best.Name, agree(use), agree(best), strconv.FormatFloat(holmP(doc.Pairwise, use.Name, best.Name), 'g', 3, 64),
			len(top.Members), costText(use, axis), costText(best, axis))
	}
	b.WriteString(".")
	return use.Name, b.String()
}

// costText is c's cost on axis for the sentence ("$0.12", "35.2 s").
func costText(c Candidate, axis string) string {
	v := *costOn(c, axis)
	if axis == AxisUSD {
		return "$" + strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64) + " s"
}

// others lists the names in members other than skip, joined by commas.
func others(members []string, skip string) string {
	var out []string
	for _, m := range members {
		if m != skip {
			out = append(out, m)
		}
	}
	return strings.Join(out, ", ")
}
