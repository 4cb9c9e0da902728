package report

import "github.com/evalcal/evalcal/advisor"

// Derive fills the report's fields that follow from its other fields,
// when they are absent: RecommendationsNote, advisor.RankingNote of the
// recommendations. calibrate.Fill calls it when it builds the report and
// reportio.ParseReport once after decoding, so that a report written
// before evalcal had the field reads as a new one and the renderers only
// print. It is idempotent.
func (r *Report) Derive() {
	if r.RecommendationsNote == "" {
		r.RecommendationsNote = advisor.RankingNote(r.Recommendations)
	}
}
