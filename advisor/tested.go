package advisor

// Alpha is the significance level every tested rule fires at.
const Alpha = 0.05

// The bases of an expected impact (Impact.Basis).
const (
	BasisResolved       = "upper bound: every addressed disagreement resolved"
	BasisImbalance      = "the one-sided excess of split runs resolved"
	BasisCrossValidated = "held-out verdicts, 10-fold cross-validation across runs"
	BasisRestRate       = "the system's runs agreeing as often as the other systems' runs"
)

// Test is the significance test a rule passed before it fired.
type Test struct {
	// Name says which test, Detail what it was computed on.
	Name   string `yaml:"name" json:"name"`
	Detail string `yaml:"detail" json:"detail"`
	// P is the p-value; null for a test read off an interval.
	P     *float64 `yaml:"p" json:"p"`
	Alpha float64  `yaml:"alpha" json:"alpha"`
}
