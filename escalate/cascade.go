package escalate

import (
	"errors"
	"fmt"
	"math"
)

// Policy is a calibrated escalation rule as the report saves it and
// `evalcal run --escalate` reads it back: the source, the threshold, and
// the guarantee it was chosen under.
type Policy struct {
	Source Source
	// Met is false when calibration found no threshold: every run is
	// then escalated.
	Met       bool
	Threshold float64
	Target    Target
	// N is the number of calibration runs behind the guarantee.
	N int
	// Cuts are the verdict lines score-distance measures from.
	Cuts Cuts
}

// Check returns an error when the policy cannot be applied.
func (p Policy) Check() error {
	if _, err := ParseSource(string(p.Source)); err != nil {
		return err
	}
	if err := p.Target.Check(); err != nil {
		return err
	}
	if math.IsNaN(p.Threshold) || math.IsInf(p.Threshold, 0) {
		return fmt.Errorf("escalate: threshold %v is not finite", p.Threshold)
	}
	if p.N < 0 {
		return fmt.Errorf("escalate: calibration n %d is negative", p.N)
	}
	if !(p.Cuts.FailBelow < p.Cuts.PassAt) {
		return fmt.Errorf("escalate: verdict cuts %v and %v: fail_below must be under pass_at", p.Cuts.FailBelow, p.Cuts.PassAt)
	}
	return nil
}

// Escalates reports whether a run whose light confidence is conf goes
// to deep: always when the policy has no threshold (not Met), otherwise
// when conf < Threshold. Light decides alone at conf >= Threshold, the
// runs Calibrate counted as covered.
func (p Policy) Escalates(conf float64) bool {
	return !p.Met || conf < p.Threshold
}

// Route returns, for light's evidence on one run, its confidence and
// whether the run goes to deep. Evidence that lacks the policy's source
// (ErrUnavailable) is escalated with confidence 0 and no error: deep
// decides where light cannot say how sure it is. Invalid evidence is an
// error.
func (p Policy) Route(ev Evidence) (conf float64, escalate bool, err error) {
	conf, err = Confidence(p.Source, ev, p.Cuts)
	if err != nil {
		if errors.Is(err, ErrUnavailable) {
			return 0, true, nil
		}
		return 0, true, err
	}
	return conf, p.Escalates(conf), nil
}

// Final returns a run's final verdict under the cascade: deep's when the
// run was escalated, light's otherwise.
func Final(lightVerdict, deepVerdict string, escalated bool) string {
	if escalated {
		return deepVerdict
	}
	return lightVerdict
}
