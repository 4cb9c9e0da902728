package forecast

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"

	// The pure-Go SQLite driver, registered as "sqlite".
	_ "modernc.org/sqlite"
)

// DefaultSQLiteWindow is how many of an agent's newest settled rows are
// scored by default (the dashboard's bounded window, issue 4).
const DefaultSQLiteWindow = 5000

// SQLiteOptions configures ReadSQLite.
type SQLiteOptions struct {
	// Window is how many of each agent's newest settled rows (by
	// settled_at) are read; 0 means DefaultSQLiteWindow. Negative is an
	// error.
	Window int
}

// ErrorDistribution counts an agent's settled rows in the window by
// composite_error level (issue 4): < 0.2 as expected, < 0.5 minor miss,
// < 0.8 clear miss, otherwise severe miss. Missing counts rows without a
// composite_error.
type ErrorDistribution struct {
	AsExpected int `yaml:"as_expected" json:"as_expected"`
	MinorMiss  int `yaml:"minor_miss" json:"minor_miss"`
	ClearMiss  int `yaml:"clear_miss" json:"clear_miss"`
	SevereMiss int `yaml:"severe_miss" json:"severe_miss"`
	Missing    int `yaml:"missing" json:"missing"`
}

// Add counts one composite error.
func (d *ErrorDistribution) Add(compositeError float64) {
	switch {
	case compositeError < 0.2:
		d.AsExpected++
	case compositeError < 0.5:
		d.MinorMiss++
	case compositeError < 0.8:
		d.ClearMiss++
	default:
		d.SevereMiss++
	}
}

// SQLiteResult is what ReadSQLiteResult reads from a prediction log.
type SQLiteResult struct {
	// Forecasts are Binary, sorted by agent then At (settled_at).
	Forecasts []Forecast
	// Errors is the composite_error distribution per agent over the same
	// rows.
	Errors map[string]ErrorDistribution
	// BadRows are rows that could not be read: File is the database,
	// Line the row's position in the table (1-based).
	BadRows []BadLine
	// Unsettled counts rows without settled_at, which are not scored.
	Unsettled int
	// Dropped counts settled rows beyond the window.
	Dropped int
}

// ReadSQLite reads the settled rows of the task_prediction_log table of
// the SQLite database at path (read-only) as Binary forecasts, with the
// composite_error distribution per agent. See ReadSQLiteResult.
func ReadSQLite(ctx context.Context, path string, opts SQLiteOptions) ([]Forecast, map[string]ErrorDistribution, error) {
	res, err := ReadSQLiteResult(ctx, path, opts)
	if err != nil {
		return nil, nil, err
	}
	return res.Forecasts, res.Errors, nil
}

// sqliteRow is one settled row.
type sqliteRow struct {
	f        Forecast
	errValue float64
	hasError bool
}

// ReadSQLiteResult reads the task_prediction_log table (columns
// prediction_id, agent_id, prediction_json) of the database at path,
// opened read-only (mode=ro; a missing file is an error, never created).
// prediction_json holds confidence (in [0, 1]), category, settled_at
// (RFC 3339; null or absent = not settled) and composite_error. A settled
// row becomes a Binary forecast with Confidence = confidence and Outcome
// 1 when category is "negligible" or "moderate" (right), else 0; At is
// settled_at; Fields holds prediction_json's scalar fields as text plus
// prediction_id and agent_id. Per agent, the newest opts.Window settled
// rows are kept (ties by prediction_id). Rows that cannot be read are
// reported in BadRows, never fatal. It returns an error when the database
// cannot be opened or queried, or ctx is done.
func ReadSQLiteResult(ctx context.Context, path string, opts SQLiteOptions) (SQLiteResult, error) {
	window := opts.Window
	if window == 0 {
		window = DefaultSQLiteWindow
	}
	if window < 0 {
		return SQLiteResult{}, fmt.Errorf("forecast: sqlite window %d must be positive", opts.Window)
	}
	// Stat first: the driver reports a missing file as a vague
	// "unable to open database file".
	if _, err := os.Stat(path); err != nil {
		return SQLiteResult{}, fmt.Errorf("forecast: sqlite %s: %w", path, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return SQLiteResult{}, fmt.Errorf("forecast: sqlite %s: %w", path, err)
	}
	dsn := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: "mode=ro"}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return SQLiteResult{}, fmt.Errorf("forecast: sqlite %s: %w", path, err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT prediction_id, agent_id, prediction_json FROM task_prediction_log`)
	if err != nil {
		return SQLiteResult{}, fmt.Errorf("forecast: sqlite %s: %w", path, err)
	}
	defer rows.Close()

	res := SQLiteResult{Errors: map[string]ErrorDistribution{}}
	byAgent := map[string][]sqliteRow{}
	for n := 1; rows.Next(); n++ {
		var id, agent, js sql.NullString
		if err := rows.Scan(&id, &agent, &js); err != nil {
			res.BadRows = append(res.BadRows, BadLine{File: path, Line: n, Field: "row", Error: err.Error()})
			continue
		}
		r, settled, err := parsePredictionRow(id, agent, js)
		if err != nil {
			res.BadRows = append(res.BadRows, badLineOf(path, n, err))
			continue
		}
		if !settled {
			res.Unsettled++
			continue
		}
		r.f.Source, r.f.Line = path, n
		byAgent[r.f.Agent] = append(byAgent[r.f.Agent], r)
	}
	if err := rows.Err(); err != nil {
		return SQLiteResult{}, fmt.Errorf("forecast: sqlite %s: %w", path, err)
	}
	agents := make([]string, 0, len(byAgent))
	for a := range byAgent {
		agents = append(agents, a)
	}
	sort.Strings(agents)
	for _, a := range agents {
		rs := byAgent[a]
		// Newest first, then keep the window and put it back in time order.
		sort.SliceStable(rs, func(i, j int) bool {
			if !rs[i].f.At.Equal(rs[j].f.At) {
				return rs[i].f.At.After(rs[j].f.At)
			}
			return rs[i].f.ID > rs[j].f.ID
		})
		if len(rs) > window {
			res.Dropped += len(rs) - window
			rs = rs[:window]
		}
		var dist ErrorDistribution
		for i := len(rs) - 1; i >= 0; i-- {
			res.Forecasts = append(res.Forecasts, rs[i].f)
			if rs[i].hasError {
				dist.Add(rs[i].errValue)
			} else {
				dist.Missing++
			}
		}
		res.Errors[a] = dist
	}
	return res, nil
}

// parsePredictionRow reads one row; settled is false for a row without
// settled_at.
func parsePredictionRow(id, agent, js sql.NullString) (sqliteRow, bool, error) {
	if !id.Valid || id.String == "" {
		return sqliteRow{}, false, fieldErrorf("prediction_id", "missing")
	}
	if !agent.Valid || agent.String == "" {
		return sqliteRow{}, false, fieldErrorf("agent_id", "missing")
	}
	if !js.Valid {
		return sqliteRow{}, false, fieldErrorf("prediction_json", "missing")
	}
	raw, err := decodeObject([]byte(js.String))
	if err != nil {
		return sqliteRow{}, false, &fieldError{field: "prediction_json", err: err}
	}
	settledAt, settled, err := raw.str("settled_at")
	if err != nil || !settled {
		return sqliteRow{}, false, err
	}
	at, err := parseTimestamp("settled_at", settledAt)
	if err != nil {
		return sqliteRow{}, false, err
	}
	conf, ok, err := raw.number("confidence")
	if err != nil {
		return sqliteRow{}, false, err
	}
	if !ok || conf < 0 || conf > 1 {
		return sqliteRow{}, false, fieldErrorf("confidence", "must be a number in [0, 1]")
	}
	category, err := raw.required("category")
	if err != nil {
		return sqliteRow{}, false, err
	}
	r := sqliteRow{f: Forecast{ID: id.String, Agent: agent.String, At: at, Kind: Binary, Confidence: conf}}
	if category == "negligible" || category == "moderate" {
		r.f.Outcome = 1
	}
	if r.errValue, r.hasError, err = raw.number("composite_error"); err != nil {
		return sqliteRow{}, false, err
	}
	r.f.Fields = map[string]string{"prediction_id": id.String, "agent_id": agent.String}
	for k, v := range raw {
		v = bytes.TrimSpace(v)
		if s := sealText(v); s != "" && v[0] != '{' && v[0] != '[' {
			r.f.Fields[k] = s
		}
	}
	return r, true, nil
}
