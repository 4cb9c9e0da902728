package calibrate

import (
	"github.com/evalcal/evalcal/drift"
	"github.com/evalcal/evalcal/report"
)

// judgeChanges names what changed in each side's judge between a
// baseline's inputs and the current ones, "light: " or "deep: " and one
// item a field (drift.Judge.Changes: spec, provider, base URL, model,
// parameters, prompt hash, and the identity when nothing else explains
// it); nil when nothing did.
func judgeChanges(prev, cur report.Inputs) []string {
	var out []string
	for _, s := range []struct {
		name      string
		then, now report.Side
	}{{"light", prev.Light, cur.Light}, {"deep", prev.Deep, cur.Deep}} {
		for _, c := range judgeOfSide(s.then).Changes(judgeOfSide(s.now)) {
			out = append(out, s.name+": "+c)
		}
	}
	return out
}

func judgeOfSide(s report.Side) drift.Judge {
	return drift.Judge{Spec: s.Spec, Identity: s.Identity, Provider: s.Provider, BaseURL: s.BaseURL, Model: s.Model,
		Parameters: s.Parameters, PromptSHA256: s.PromptSHA256}
}
