package drift

import (
	"fmt"

	"github.com/evalcal/evalcal/statistician"
)

// HistoryMethod names the anytime-valid test in the document.
const HistoryMethod = "spent Bonferroni: night k is held to alpha/(k(k+1)), shared among the sides inspected; P(any false alarm, ever) <= alpha under any dependence between nights"

// HistoryInput is the earlier nights of one series: drift documents of the
// same anchors and the same judges, oldest first (see SameSeries).
type HistoryInput struct {
	Earlier []*Document
	// Names are the earlier documents' file names, for the listing.
	Names []string
	// Skipped counts the documents read that belong to another series.
	Skipped int
}

// History is the anytime-valid result over every night of a series,
// tonight included as the last look.
//
// Why not a martingale over the nights' flip counts: every night compares
// with the one frozen anchor, so nights are dependent through it. A run
// whose frozen verdict was a lucky pass flips to fail on most nights, and
// a betting or mixture martingale that treats the nights' flips as fresh
// evidence (Howard et al. 2021, Ann. Statist. 49:1055; Waudby-Smith and
// Ramdas 2024, JRSS B 86:1-27, online 2023) grows under no change and alarms falsely. The
// union bound needs no independence: each night's exact McNemar p is
// valid on its own, and night k is held to alpha gamma_k with gamma_k =
// 1/(k(k+1)) (statistician.SpentBonferroni), so over any number of nights
//
//	P(some night alarms | no change) <= sum_k alpha gamma_k = alpha.
type History struct {
	Method string `yaml:"method" json:"method"`
	Looks  int    `yaml:"looks" json:"looks"`
	// Detected is true when any night crossed its threshold; FirstDetected
	// is that night's look (0 when none did).
	Detected      bool `yaml:"detected" json:"detected"`
	FirstDetected int  `yaml:"first_detected" json:"first_detected"`
	// Skipped counts documents in the history directory that belong to
	// other anchors or judges.
	Skipped int     `yaml:"skipped" json:"skipped"`
	Nights  []Night `yaml:"nights" json:"nights"`
}

// Night is one look of the series.
type Night struct {
	Look   int    `yaml:"look" json:"look"`
	Source string `yaml:"source" json:"source"`
	// Threshold is the level the night's tests are held to: alpha gamma_k
	// over the number of sides.
	Threshold float64 `yaml:"threshold" json:"threshold"`
	LightP    float64 `yaml:"light_p" json:"light_p"`
	// DeepP is deep's McNemar p, absent when deep was not inspected again.
	DeepP *float64 `yaml:"deep_p,omitempty" json:"deep_p,omitempty"`
	// AgreementUpper is the upper bound of light's change in agreement
	// with deep at level 1 - Threshold; absent without deep labels.
	AgreementUpper *float64 `yaml:"agreement_upper,omitempty" json:"agreement_upper,omitempty"`
	Crossed        bool     `yaml:"crossed" json:"crossed"`
	Detected       bool     `yaml:"detected" json:"detected"`
	// Trend points for the nightly chart: light's flip rate and, with
	// deep labels, its agreement with deep tonight.
	FlipRate  float64  `yaml:"flip_rate" json:"flip_rate"`
	Agreement *float64 `yaml:"agreement,omitempty" json:"agreement,omitempty"`
}

// SameSeries reports whether d is a night of the series of tonight's
// document: the same anchors, the same light judge tonight and the same
// deep judge tonight (or deep not inspected again both times).
func SameSeries(d, tonight *Document) bool {
	if d.Anchors.Hash != tonight.Anchors.Hash || d.Judges.Light.Now.Identity != tonight.Judges.Light.Now.Identity {
		return false
	}
	if (d.Judges.Deep == nil) != (tonight.Judges.Deep == nil) || (d.Deep == nil) != (tonight.Deep == nil) {
		return false
	}
	return d.Judges.Deep == nil || d.Judges.Deep.Now.Identity == tonight.Judges.Deep.Now.Identity
}

// history runs the sequential test over the earlier nights and tonight.
func history(h *HistoryInput, tonight *Document, o Options) (*History, error) {
	docs := append(append([]*Document{}, h.Earlier...), tonight)
	names := append(append([]string{}, h.Names...), "tonight")
	sides := 1
	if tonight.Deep != nil {
		sides = 2
	}
	out := &History{Method: HistoryMethod, Looks: len(docs), Skipped: h.Skipped, Nights: make([]Night, 0, len(docs))}
	var lightPs, deepPs []float64
	for _, d := range docs {
		lightPs = append(lightPs, d.Light.Flips.McNemarP)
		if d.Deep != nil {
			deepPs = append(deepPs, d.Deep.Flips.McNemarP)
		}
	}
	perSide := o.Alpha / float64(sides)
	light, err := statistician.SpentBonferroni(lightPs, perSide)
	if err != nil {
		return nil, fmt.Errorf("drift: history: light: %w", err)
	}
	var deep statistician.SequentialResult
	if sides == 2 {
		if len(deepPs) != len(docs) {
			return nil, fmt.Errorf("drift: history: %d of %d nights inspected deep again", len(deepPs), len(docs))
		}
		if deep, err = statistician.SpentBonferroni(deepPs, perSide); err != nil {
			return nil, fmt.Errorf("drift: history: deep: %w", err)
		}
	}
	for i, d := range docs {
		n := Night{Look: i + 1, Source: names[i], Threshold: light.Looks[i].Threshold, LightP: lightPs[i],
			Crossed: light.Looks[i].Crossed, FlipRate: d.Light.Flips.Rate}
		if sides == 2 {
			p := deepPs[i]
			n.DeepP = &p
			n.Crossed = n.Crossed || deep.Looks[i].Crossed
		}
		if a := d.Light.AgreementWithDeep; a != nil {
			if a.Table.N() != a.N {
				return nil, fmt.Errorf("drift: history: %s: agreement_with_deep: table counts %d runs, n says %d", names[i], a.Table.N(), a.N)
			}
			// A two-sided interval at level 1 - t, as tonight's is at 1 - alpha.
			z, err := statistician.ZForLevel(1 - n.Threshold)
			if err != nil {
				return nil, fmt.Errorf("drift: history: %w", err)
			}
			ac := agreementFromTable(a.Table, z, 1-n.Threshold, o.MaxDrop)
			upper, now := ac.Change.CI.Upper, ac.Now
			n.AgreementUpper, n.Agreement = &upper, &now
			n.Crossed = n.Crossed || ac.Fell
		}
		if n.Crossed && !out.Detected {
			out.Detected, out.FirstDetected = true, n.Look
		}
		n.Detected = out.Detected
		out.Nights = append(out.Nights, n)
	}
	return out, nil
}
