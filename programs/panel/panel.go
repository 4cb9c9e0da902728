// Package panel is a panel of judges used as one inspector
// (`panel:SPEC,SPEC,SPEC[?agg=majority|median]`, README "Choosing a
// judge"): every member inspects the run, and the panel's inspection
// aggregates their answers.
//
// # Aggregation
//
//   - majority (the default): the most frequent verdict among the members
//     that answered; a tie goes to the strictest of the tied verdicts (fail
//     < partial < pass), so a split panel never passes a run on a coin flip.
//     Scores are the members' means. This is inspection.Consolidate, the rule
//     of --repeat.
//   - median: the median of each score (runtime fidelity, task
//     effectiveness) over the members that answered (the mean of the two
//     middle values for an even count), and the verdict docs/DESIGN.md's rule
//     gives those scores (fail below inspection.FailBelow, pass when both reach
//     inspection.PassAt and no member raised a critical flag, partial
//     otherwise).
//
// A member whose call fails abstains: it never counts as a pass, and the
// panel's verdict uses the others. When every member fails, the panel's
// inspection fails with the members' errors.
//
// # Spec
//
// Members are separated by commas. A member that itself holds a comma (an
// exec command) is written in square brackets, [exec:sh judge.sh a,b]; in
// brackets everything up to the matching ] is the member, brackets nest,
// and a backslash makes the next character literal anywhere (\, \[ \]
// \\ \?). The panel's option is a trailing ?agg=majority or ?agg=median
// outside brackets; any other ? belongs to a member (an importer's
// options).
package panel

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/evalcal/evalcal/inspection"
)

// Aggregations.
const (
	Majority = "majority"
	Median   = "median"
)

// Version is part of the identity: it rises when an aggregation changes.
const Version = 1

// MaxMembers bounds a panel's size.
const MaxMembers = 32

// ParseSpec splits the text after "panel:" into member specs and the
// aggregation (Majority when not given). It needs at least two members,
// none empty.
func ParseSpec(s string) (members []string, agg string, err error) {
	agg = Majority
	for _, a := range []string{Majority, Median} {
		if body, ok := strings.CutSuffix(s, "?agg="+a); ok && !escapedEnd(body) {
			s, agg = body, a
			break
		}
	}
	var cur strings.Builder
	depth := 0
	flush := func() error {
		m := strings.TrimSpace(cur.String())
		if m == "" {
			return fmt.Errorf("panel: an empty member in %q", s)
		}
		members = append(members, m)
		cur.Reset()
		return nil
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\\':
			if i+1 == len(s) {
				return nil, "", fmt.Errorf("panel: %q ends with a lone backslash", s)
			}
			i++
			cur.WriteByte(s[i])
		case ch == '[':
			if depth > 0 {
				cur.WriteByte(ch)
			}
			depth++
		case ch == ']':
			if depth == 0 {
				return nil, "", fmt.Errorf("panel: unmatched ] at byte %d of %q", i+1, s)
			}
			depth--
			if depth > 0 {
				cur.WriteByte(ch)
			}
		case ch == ',' && depth == 0:
			if err := flush(); err != nil {
				return nil, "", err
			}
		default:
			cur.WriteByte(ch)
		}
	}
	if depth != 0 {
		return nil, "", fmt.Errorf("panel: unclosed [ in %q", s)
	}
	if err := flush(); err != nil {
		return nil, "", err
	}
	if len(members) < 2 || len(members) > MaxMembers {
		return nil, "", fmt.Errorf("panel: a panel needs 2 to %d members, got %d in %q", MaxMembers, len(members), s)
	}
	return members, agg, nil
}

// escapedEnd reports whether s ends in an odd number of backslashes (the
// ? after it is then literal).
func escapedEnd(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// Inspector is a panel: its members, in the order given, and the
// aggregation.
type Inspector struct {
	members []inspection.Inspector
	agg     string
}

// New returns the panel of members aggregated by agg (Majority or Median).
func New(agg string, members []inspection.Inspector) (*Inspector, error) {
	if agg != Majority && agg != Median {
		return nil, fmt.Errorf("panel: aggregation must be majority or median, got %q", agg)
	}
	if len(members) < 2 {
		return nil, fmt.Errorf("panel: a panel needs at least 2 members, got %d", len(members))
	}
	return &Inspector{members: slices.Clone(members), agg: agg}, nil
}

// Identity is "panel/VERSION:AGG:" and the first 16 hex digits of the
// SHA-256 of the members' identities in order: a member's new identity,
// another order or aggregation is another panel.
func (p *Inspector) Identity() string {
	h := sha256.New()
	for _, m := range p.members {
		h.Write([]byte(m.Identity()))
		h.Write([]byte{0})
	}
	return fmt.Sprintf("panel/%d:%s:%s", Version, p.agg, hex.EncodeToString(h.Sum(nil))[:16])
}

// Members returns the panel's members in order.
func (p *Inspector) Members() []inspection.Inspector { return slices.Clone(p.members) }

// Inspect asks every member in turn (the runner already runs runs in
// parallel) and aggregates the answers of those that did not fail.
func (p *Inspector) Inspect(ctx context.Context, run inspection.Run, depth inspection.Depth) (inspection.Inspection, error) {
	var got []inspection.Inspection
	votes := make([]string, len(p.members))
	var errs []error
	for i, m := range p.members {
		insp, err := m.Inspect(ctx, run, depth)
		if err != nil {
			if ctx.Err() != nil {
				return inspection.Inspection{}, ctx.Err()
			}
			votes[i] = "abstained"
			errs = append(errs, fmt.Errorf("member %d (%s): %w", i+1, m.Identity(), err))
			continue
		}
		votes[i] = insp.Verdict
		got = append(got, insp)
	}
	if len(got) == 0 {
		return inspection.Inspection{}, fmt.Errorf("panel: every member failed: %w", errors.Join(errs...))
	}
	out := p.aggregate(got)
	out.RunID, out.Depth = run.ID, depth
	if out.System == "" {
		out.System = run.System
	}
	out.Summary = fmt.Sprintf("panel %s of %d: %s", p.agg, len(p.members), strings.Join(votes, ", "))
	out.Votes = votes
	return out, nil
}

// aggregate applies the panel's aggregation to the answers it got.
func (p *Inspector) aggregate(got []inspection.Inspection) inspection.Inspection {
	if p.agg == Majority {
		return inspection.Consolidate(got)
	}
	out := inspection.Consolidate(got) // the summed cost, the first answer's services
	rf := make([]float64, len(got))
	te := make([]float64, len(got))
	var flags []inspection.Flag
	for i, g := range got {
		rf[i], te[i] = g.RuntimeFidelity, g.TaskEffectiveness
		flags = append(flags, g.Flags...)
	}
	out.RuntimeFidelity, out.TaskEffectiveness = median(rf), median(te)
	out.Flags = flags
	out.Verdict = inspection.Verdict(true, out.RuntimeFidelity, out.TaskEffectiveness, flags)
	return out
}

// median of xs (not empty): the middle value, or the mean of the two
// middle values for an even count.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Aggregation returns the panel's aggregation (Majority or Median).
func (p *Inspector) Aggregation() string { return p.agg }
