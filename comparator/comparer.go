package comparator

import "github.com/evalcal/evalcal/runner"

// Comparer compares pairs one at a time (ComparePair) and shares the
// text its comparisons repeat: notes, flag keys, systems and verdicts
// are the same few strings over and over, and a million comparisons
// held some 250 MB of copies of them (issue 26). A comparison's run id
// is the run's own string. The zero Comparer is ready to use; it is not
// safe for concurrent use.
type Comparer struct {
	texts map[string]string
}

// maxSharedTexts bounds the texts a Comparer keeps: past it, new texts
// are kept by their comparison alone (flag keys or notes that never
// repeat must not grow a table as large as the runs).
const maxSharedTexts = 1 << 16

// Compare returns ComparePair(p), its repeated text shared.
func (c *Comparer) Compare(p runner.Pair) Comparison {
	cmp := ComparePair(p)
	if cmp.RunID == p.Run.ID {
		cmp.RunID = p.Run.ID
	}
	cmp.System = c.share(cmp.System)
	cmp.LightVerdict, cmp.DeepVerdict = c.share(cmp.LightVerdict), c.share(cmp.DeepVerdict)
	for _, list := range [][]string{cmp.Notes, cmp.FlagOverlap.Both, cmp.FlagOverlap.LightOnly, cmp.FlagOverlap.DeepOnly, cmp.FlagOverlap.SeverityMismatches} {
		for i, s := range list {
			list[i] = c.share(s)
		}
	}
	return cmp
}

// share returns the kept string equal to s, keeping s when none is and
// there is room.
func (c *Comparer) share(s string) string {
	if t, ok := c.texts[s]; ok {
		return t
	}
	if c.texts == nil {
		c.texts = map[string]string{}
	}
	if len(c.texts) < maxSharedTexts {
		c.texts[s] = s
	}
	return s
}
