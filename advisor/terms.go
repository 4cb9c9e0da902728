package advisor

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// Term is a word one side's summaries use on a set of runs, with the
// number of those runs whose summary on that side (Own) and on the other
// side (Other) contains it.
type Term struct {
	Word  string
	Own   int
	Other int
}

// maxTerms bounds the terms a recommendation names.
const maxTerms = 5

// DistinctiveTerms returns the words that one side's summaries of a set
// of runs use and the other side's summaries of the same runs do not:
// what that side looked at that the other did not. own[i] and other[i]
// are the two sides' summaries of run i. A word is a maximal run of
// letters and digits, lower-cased, of at least 4 runes, not all digits
// and not a stop word; each summary counts a word once. A word is kept
// when Own >= 2, Own >= 10% of the runs with a summary on this side, and
// Own >= 2 Other; the kept words are ordered by Own - Other, then Own,
// then the word, and at most 5 are returned. Nil when no summary is
// given.
func DistinctiveTerms(own, other []string) []Term {
	ownDF, withSummary := docFreq(own)
	if withSummary == 0 {
		return nil
	}
	otherDF, _ := docFreq(other)
	var out []Term
	for w, n := range ownDF {
		o := otherDF[w]
		if n >= 2 && 10*n >= withSummary && n >= 2*o {
			out = append(out, Term{Word: w, Own: n, Other: o})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Own-a.Other != b.Own-b.Other {
			return a.Own-a.Other > b.Own-b.Other
		}
		if a.Own != b.Own {
			return a.Own > b.Own
		}
		return a.Word < b.Word
	})
	if len(out) > maxTerms {
		out = out[:maxTerms]
	}
	return out
}

// docFreq counts, per word, the summaries containing it, and the
// summaries that are not empty.
func docFreq(docs []string) (map[string]int, int) {
	df := map[string]int{}
	n := 0
	for _, d := range docs {
		if strings.TrimSpace(d) == "" {
			continue
		}
		n++
		seen := map[string]bool{}
		for _, w := range strings.FieldsFunc(strings.ToLower(d), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}) {
			if seen[w] || len([]rune(w)) < 4 || stopWords[w] || strings.IndexFunc(w, unicode.IsLetter) < 0 {
				continue
			}
			seen[w] = true
			df[w]++
		}
	}
	return df, n
}

// termList writes terms as `"word" (own of n runs, other side's other)`.
func termList(ts []Term, n int, otherSide string) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = fmt.Sprintf("%q (%d of %d runs; %s %d)", t.Word, t.Own, n, otherSide, t.Other)
	}
	return strings.Join(parts, ", ")
}

// stopWords are English function words of 4 letters or more and words
// every judge summary uses, which name no criterion.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		about above after again against also although among another because
		been before being below between both could does doing down during each
		either else even every from further have having here hers herself
		himself however into itself just less like made make many more most much
		must neither nether none only other ought ours ourselves over same shall
		should since some such than that their theirs them themselves then there
		these they this those though through thus under until upon very were
		what when where whether which while whom whose will with within without
		would your yours yourself yourselves
		answer response output outputs responses answers model run runs task
		tasks judge overall verdict score scores pass passes passed fail fails
		failed partial light deep`) {
		m[w] = true
	}
	return m
}()
