package forecast

// Lowest names the group with the lowest measured calibration (the 0-100
// score of ScoredGroup.Calibration or GroupScore.Calibration); when
// several tie, the first in the document's group order.
type Lowest struct {
	// Group is the group's key (score) or "AGENT SEASON" (calls).
	Group       string  `yaml:"group" json:"group"`
	Calibration float64 `yaml:"calibration" json:"calibration"`
}

// lowest is the Lowest of n groups whose i-th has name and calibration
// at(i); nil when no group's calibration was measured.
func lowest(n int, at func(i int) (string, *float64)) *Lowest {
	var low *Lowest
	for i := 0; i < n; i++ {
		name, c := at(i)
		if c != nil && (low == nil || *c < low.Calibration) {
			low = &Lowest{Group: name, Calibration: *c}
		}
	}
	return low
}

// Derive fills the score document's derived fields from its groups:
// LowestCalibration, when it is absent. The scorer calls it when it
// builds the document; a reader of a document written before evalcal had
// the field calls it once after decoding, so that the renderers only
// print. It is idempotent: a document that has the field keeps it.
func (d *ScoreReport) Derive() {
	if d.LowestCalibration == nil {
		d.LowestCalibration = lowest(len(d.Groups), func(i int) (string, *float64) {
			return d.Groups[i].Key, d.Groups[i].Calibration
		})
	}
}

// Derive fills the calls document's derived fields from its groups when
// they are absent (zero): Resolved, the resolved calls over every
// agent-season, and LowestCalibration, keyed "AGENT SEASON". The calls
// command calls it when it builds the document, and a reader of a
// document written before evalcal had those fields calls it once after
// decoding (see ScoreReport.Derive).
func (d *CallsDocument) Derive() {
	if d.Resolved == 0 {
		for _, g := range d.Groups {
			d.Resolved += g.Resolved
		}
	}
	if d.LowestCalibration == nil {
		d.LowestCalibration = lowest(len(d.Groups), func(i int) (string, *float64) {
			return d.Groups[i].Agent + " " + d.Groups[i].Season, d.Groups[i].Calibration
		})
	}
}
