package aggregate

import (
	"fmt"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/statistician"
)

// Forecast treats light's score as a probability forecast of a deep pass:
//
//	p = (light runtime_fidelity + light task_effectiveness) / 200
//	y = 1 if deep's verdict is pass, else 0
//
// and scores it with the Brier score, the 0-100 calibration score, the
// CORP decomposition and a reliability table of fixed-width bins. Light
// scores take few distinct values (the builtin's caps put most runs at
// 0.825), and equal-frequency bins would split such ties across several
// bins of the same forecast; fixed-width bins never split a value, and an
// empty bin carries no rate. If light's
// score means what it says, runs light scores at 0.8 pass deep about 80%
// of the time. When no run was compared, only Reason is set.
type Forecast struct {
	Of          string
	Probability string
	N           int
	DeepPasses  int
	BaseRate    float64
	Brier       *float64
	Calibration *float64
	CORP        *statistician.CORPDecomposition
	Reliability *statistician.BinnedMurphy
	Reason      string
}

// LightForecast is one run's light score as a probability forecast of a
// deep pass: p = (light runtime_fidelity + light task_effectiveness) / 200,
// y = 1 when deep's verdict is pass. Scores were checked to lie in 0..100
// by the runner; an out-of-range value from another caller makes Brier
// fail with a reason. The report's trend uses the same definition.
func LightForecast(c comparator.Comparison) (p float64, y int) {
	p = (c.Light.RuntimeFidelity + c.Light.TaskEffectiveness) / 200
	if c.DeepVerdict == inspection.VerdictPass {
		y = 1
	}
	return p, y
}

func lightAsForecast(cs []comparator.Comparison, bins int) Forecast {
	f := Forecast{
		Of:          "deep verdict is pass",
		Probability: "(light runtime_fidelity + light task_effectiveness) / 200",
		N:           len(cs),
	}
	if len(cs) == 0 {
		f.Reason = "no runs were compared"
		return f
	}
	p := make([]float64, len(cs))
	y := make([]int, len(cs))
	for i, c := range cs {
		p[i], y[i] = LightForecast(c)
		f.DeepPasses += y[i]
	}
	f.BaseRate = float64(f.DeepPasses) / float64(len(cs))
	bs, err := statistician.Brier(p, y)
	if err != nil {
		f.Reason = fmt.Sprintf("brier: %v", err)
		return f
	}
	cal := statistician.CalibrationScore(bs)
	f.Brier, f.Calibration = &bs, &cal
	if d, err := statistician.CORP(p, y); err == nil {
		f.CORP = &d
	} else {
		f.Reason = fmt.Sprintf("corp: %v", err)
	}
	if b, err := statistician.MurphyBinned(p, y, bins, statistician.FixedBins); err == nil {
		f.Reliability = &b
	} else {
		f.Reason = fmt.Sprintf("reliability: %v", err)
	}
	return f
}
