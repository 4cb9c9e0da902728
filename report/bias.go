package report

// Bias is the bias section: light's errors against deep regressed on the
// log length of the judged output, a same-family flag (the light judge's
// model family is the run's system's) and slice indicators, by
// statistician.BiasRegression (OLS with HC3 standard errors; README.md,
// "The report"). Undefined regressions carry their reason.
type Bias struct {
	// Score is what the score gap is the difference of; Length what
	// log_length is the log of; Slice the field of the slice indicators
	// (the first run --by field, else system; a run without it is in the
	// slice "(none)").
	Score  string `yaml:"score" json:"score"`
	Length string `yaml:"length" json:"length"`
	Slice  string `yaml:"slice" json:"slice"`
	// JudgeFamily is the light judge's model family ("" when not known:
	// no run is then of its family) and where it came from.
	JudgeFamily       string `yaml:"judge_family" json:"judge_family"`
	JudgeFamilySource string `yaml:"judge_family_source" json:"judge_family_source"`
	// Families lists each system's family and its source, by system.
	Families []SystemFamily `yaml:"families" json:"families"`
	// Runs counts the runs regressed, SameFamilyRuns those of the judge's
	// family; NoLength the runs left out for want of a positive length.
	Runs           int `yaml:"runs" json:"runs"`
	SameFamilyRuns int `yaml:"same_family_runs" json:"same_family_runs"`
	NoLength       int `yaml:"no_length" json:"no_length"`
	// ScoreGap regresses light's score minus deep's, in points; Leniency
	// the one-sided verdict disagreement (light passes, deep does not).
	ScoreGap       Regression `yaml:"score_gap" json:"score_gap"`
	Leniency       Regression `yaml:"leniency" json:"leniency"`
	ReferenceSlice string     `yaml:"reference_slice,omitempty" json:"reference_slice,omitempty"`
	Omitted        []string   `yaml:"omitted" json:"omitted"`
	// SameFamily is the verdict on the same-family coefficient, which
	// caps the trust verdict at monitor when significant.
	SameFamily SameFamilyEffect `yaml:"same_family" json:"same_family"`
}

// SystemFamily is one system's model family and where it came from:
// "--family", "metadata.model_family", "system name" or "" (unknown).
type SystemFamily struct {
	System string `yaml:"system" json:"system"`
	Family string `yaml:"family" json:"family"`
	Source string `yaml:"source" json:"source"`
}

// SameFamilyEffect says whether light treats runs of its own model family
// differently: Significant when the same_family coefficient's p-value is
// below Alpha in either regression (0.05 split between the two by
// Bonferroni); P is the smaller of the two p-values, Words the sentence
// the summary quotes.
type SameFamilyEffect struct {
	Tested      bool     `yaml:"tested" json:"tested"`
	Significant bool     `yaml:"significant" json:"significant"`
	Alpha       float64  `yaml:"alpha" json:"alpha"`
	P           *float64 `yaml:"p" json:"p"`
	Words       string   `yaml:"words" json:"words"`
}
