package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"

	"github.com/evalcal/evalcal/escalate"
	"github.com/evalcal/evalcal/report"
)

// escalationFlags are run's trust-or-escalate flags (README.md, "Trust
// or escalate"): calibrate a threshold (--target-agreement A [--risk D]
// [--confidence SOURCE]) or apply a saved one (--escalate FILE).
type escalationFlags struct {
	TargetAgreement float64
	Risk            float64
	Confidence      string
	Escalate        string
	riskGiven       bool
}

// maxEscalationFile bounds the --escalate file (a whole report may be
// given): the limit of reports read back.
const maxEscalationFile = 64 << 20

func (e *escalationFlags) addFlags(fs *pflag.FlagSet) {
	fs.Float64Var(&e.TargetAgreement, "target-agreement", 0, "calibrate trust or escalate: the lowest light-confidence threshold with agreement with deep >= `A` (0 < A < 1) among the runs at or above it; adds the escalation section")
	fs.Float64Var(&e.Risk, "risk", escalate.DefaultRisk, "with --target-agreement: the guarantee holds with probability >= 1 - `D` (0 < D < 1)")
	fs.StringVar(&e.Confidence, "confidence", "", "light's confidence `SOURCE`: score-distance, unanimity (--repeat K), panel or probability (default: the first the data support)")
	fs.StringVar(&e.Escalate, "escalate", "", "apply a saved escalation section (`FILE`: a report or the section alone): light on every run, deep only below its threshold")
}

// validate checks the flags against each other and run's other flags.
func (e *escalationFlags) validate(o *runOptions) error {
	calibrating := e.TargetAgreement != 0
	switch {
	case math.IsNaN(e.TargetAgreement) || (calibrating && !(e.TargetAgreement > 0 && e.TargetAgreement < 1)):
		return usageErrorf("run: --target-agreement must be in (0, 1), e.g. 0.9, got %v", e.TargetAgreement)
	case !(e.Risk > 0 && e.Risk < 1):
		return usageErrorf("run: --risk must be in (0, 1), got %v", e.Risk)
	case e.riskGiven && !calibrating:
		return usageErrorf("run: --risk needs --target-agreement")
	case e.Confidence != "" && !calibrating:
		return usageErrorf("run: --confidence needs --target-agreement (a saved escalation names its own source)")
	case calibrating && e.Escalate != "":
		return usageErrorf("run: give --target-agreement (calibrate) or --escalate FILE (apply), not both")
	case e.Escalate != "" && (o.DeepSample > 0 || o.DeepFraction > 0):
		return usageErrorf("run: --escalate chooses the runs deep inspects: give no --deep-sample or --deep-fraction")
	}
	if e.Confidence != "" {
		if _, err := escalate.ParseSource(e.Confidence); err != nil {
			return usageErrorf("run: --confidence: %v", err)
		}
	}
	return nil
}

// inputs returns the calibration's escalation settings: nil without the
// flags; the saved policy read from --escalate's file in cascade mode.
func (e *escalationFlags) inputs() (*report.EscalationInputs, error) {
	switch {
	case e.TargetAgreement != 0:
		return &report.EscalationInputs{Mode: report.EscalationCalibrate, TargetAgreement: e.TargetAgreement, Risk: e.Risk, Confidence: e.Confidence}, nil
	case e.Escalate != "":
		return readEscalation(e.Escalate)
	}
	return nil, nil
}

// readEscalation reads a saved escalation section: a report holding one
// (its escalation key) or the section alone, YAML or JSON, calibrated
// (mode calibrate) or applied before (mode cascade: its policy again).
func readEscalation(path string) (*report.EscalationInputs, error) {
	if err := checkRegular(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("run: --escalate: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxEscalationFile+1))
	if err != nil {
		return nil, fmt.Errorf("run: --escalate: read %s: %w", path, err)
	}
	if len(b) > maxEscalationFile {
		return nil, fmt.Errorf("run: --escalate: %s is over %d MiB", path, maxEscalationFile>>20)
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	var doc struct {
		Escalation *report.Escalation `yaml:"escalation"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("run: --escalate: %s: %w", path, yamlError(err))
	}
	sec := doc.Escalation
	if sec == nil {
		sec = new(report.Escalation)
		if err := yaml.Unmarshal(b, sec); err != nil {
			return nil, fmt.Errorf("run: --escalate: %s: %w", path, yamlError(err))
		}
	}
	in, err := policyInputs(path, sec)
	if err != nil {
		return nil, fmt.Errorf("run: --escalate: %s: %w", path, err)
	}
	return in, nil
}

// policyInputs checks a saved section and turns it into a cascade's
// inputs, naming the field at fault.
func policyInputs(path string, sec *report.Escalation) (*report.EscalationInputs, error) {
	if sec.Mode != report.EscalationCalibrate && sec.Mode != report.EscalationCascade {
		return nil, errors.New("field mode: want calibrate or cascade (is this an escalation section?)")
	}
	if _, err := escalate.ParseSource(sec.Source); err != nil {
		return nil, fmt.Errorf("field source: %w", err)
	}
	if sec.Met != (sec.Threshold != nil) {
		return nil, errors.New("field threshold: present exactly when met is true")
	}
	g := sec.Guarantee
	p := escalate.Policy{Source: escalate.Source(sec.Source), Met: sec.Met, N: g.CalibrationN,
		Target: escalate.Target{Agreement: g.TargetAgreementPercent / 100, Risk: g.Risk}, Cuts: escalate.DefaultCuts}
	if sec.Threshold != nil {
		p.Threshold = *sec.Threshold
	}
	if err := p.Check(); err != nil {
		return nil, fmt.Errorf("fields guarantee and threshold: %w", err)
	}
	return &report.EscalationInputs{Mode: report.EscalationCascade, TargetAgreement: p.Target.Agreement, Risk: p.Target.Risk,
		Policy: &report.EscalationPolicy{File: path, Source: sec.Source, Met: sec.Met, Threshold: sec.Threshold, CalibrationN: g.CalibrationN}}, nil
}

// cascadeDecidedAll reports whether a cascade's report has every run
// decided by light: no run with both inspections is then no failure.
func cascadeDecidedAll(rep *report.Report) bool {
	e := rep.Escalation
	return e != nil && e.Mode == report.EscalationCascade && e.Escalated.Runs == 0 && e.Coverage.Runs > 0
}
