package report

import "github.com/evalcal/evalcal/advisor"

// Derive fills the report's fields that follow from its other fields,
// when they are absent (empty): RecommendationsNote, advisor.RankingNote
// of the recommendations, and Sample.ReadInPart, the sampled runs with
// warnings. calibrate.Fill calls it when it builds the report, and a
// reader after decoding (reportio.ParseReport) and again once the runs
// file has put the listings back (LoadRunsFile), so that a report written
// before evalcal had the fields reads as a new one and the renderers only
// print. It is idempotent.
func (r *Report) Derive() {
	if r.RecommendationsNote == "" {
		r.RecommendationsNote = advisor.RankingNote(r.Recommendations)
	}
	if r.Sample.ReadInPart == 0 {
		for _, run := range r.Sample.Runs {
			if len(run.Warnings) > 0 {
				r.Sample.ReadInPart++
			}
		}
	}
}
