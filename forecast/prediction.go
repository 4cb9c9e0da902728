package forecast

import (
	"bytes"
)

// PredictionRow is one settled row of DuDuClaw's task_prediction_log
// (package forecast/predictionlog reads the table) as a Binary forecast,
// with the row's composite_error when it has one.
type PredictionRow struct {
	Forecast       Forecast
	CompositeError float64
	HasError       bool
}

// DecodePredictionRow reads one row of task_prediction_log: id and agent
// are prediction_id and agent_id (both required), js is prediction_json.
// prediction_json holds confidence (in [0, 1]), category, settled_at (RFC
// 3339; null or absent = not settled) and composite_error (>= 0). A
// settled row becomes a Binary forecast with Confidence = confidence and
// Outcome 1 when category is "negligible" or "moderate" (right), else 0;
// At is settled_at; Fields holds prediction_json's scalar fields as text
// plus prediction_id and agent_id. settled is false for a row without
// settled_at. An error names the field (BadLineOf reads it).
func DecodePredictionRow(id, agent string, js []byte) (row PredictionRow, settled bool, err error) {
	if id == "" {
		return PredictionRow{}, false, fieldErrorf("prediction_id", "missing")
	}
	if agent == "" {
		return PredictionRow{}, false, fieldErrorf("agent_id", "missing")
	}
	if js == nil {
		return PredictionRow{}, false, fieldErrorf("prediction_json", "missing")
	}
	raw, err := decodeObject(js)
	if err != nil {
		return PredictionRow{}, false, &fieldError{field: "prediction_json", err: err}
	}
	settledAt, settled, err := raw.str("settled_at")
	if err != nil || !settled {
		return PredictionRow{}, false, err
	}
	at, err := parseTimestamp("settled_at", settledAt)
	if err != nil {
		return PredictionRow{}, false, err
	}
	conf, ok, err := raw.number("confidence")
	if err != nil {
		return PredictionRow{}, false, err
	}
	if !ok || conf < 0 || conf > 1 {
		return PredictionRow{}, false, fieldErrorf("confidence", "must be a number in [0, 1]")
	}
	category, err := raw.required("category")
	if err != nil {
		return PredictionRow{}, false, err
	}
	r := PredictionRow{Forecast: Forecast{ID: id, Agent: agent, At: at, Kind: Binary, Confidence: conf}}
	if category == "negligible" || category == "moderate" {
		r.Forecast.Outcome = 1
	}
	if r.CompositeError, r.HasError, err = raw.number("composite_error"); err != nil {
		return PredictionRow{}, false, err
	}
	if r.HasError && r.CompositeError < 0 {
		return PredictionRow{}, false, fieldErrorf("composite_error", "%v must be >= 0", r.CompositeError)
	}
	r.Forecast.Fields = map[string]string{"prediction_id": id, "agent_id": agent}
	for k, v := range raw {
		v = bytes.TrimSpace(v)
		if s := sealText(v); s != "" && v[0] != '{' && v[0] != '[' {
			r.Forecast.Fields[k] = s
		}
	}
	return r, true, nil
}
