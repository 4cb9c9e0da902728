package predictionlog

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"github.com/evalcal/evalcal/forecast"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// predictionDB builds a prediction.db with the given rows (id, agent,
// prediction_json) using the same pure-Go driver, as DuDuClaw's schema
// would hold them.
func predictionDB(t *testing.T, rows [][3]any) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "prediction.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE task_prediction_log (
		prediction_id TEXT PRIMARY KEY, task_id TEXT, agent_id TEXT,
		prediction_json TEXT, created_at TEXT)`); err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if _, err := tx.Exec(`INSERT INTO task_prediction_log (prediction_id, agent_id, prediction_json) VALUES (?, ?, ?)`, r[0], r[1], r[2]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func settledJSON(day int, conf float64, category string, compositeError any) string {
	e := "null"
	if compositeError != nil {
		e = fmt.Sprint(compositeError)
	}
	return fmt.Sprintf(`{"confidence":%v,"category":%q,"settled_at":"2026-08-%02dT12:00:00Z","composite_error":%s,"fidelity":"full"}`, conf, category, day, e)
}

func TestReadSQLiteScoresSettledRowsInTheWindow(t *testing.T) {
	path := predictionDB(t, [][3]any{
		{"p1", "sales", settledJSON(1, 0.9, "negligible", 0.1)}, // oldest: outside a window of 5
		{"p2", "sales", settledJSON(2, 0.8, "moderate", 0.19)},  // outside too
		{"p3", "sales", settledJSON(3, 0.7, "negligible", 0.19)},
		{"p4", "sales", settledJSON(4, 0.6, "moderate", 0.2)},
		{"p5", "sales", settledJSON(5, 0.5, "significant", 0.5)},
		{"p6", "sales", settledJSON(6, 0.4, "severe", 0.8)},
		{"p7", "sales", settledJSON(7, 0.3, "negligible", nil)},
		{"p8", "sales", `{"confidence":0.5,"category":"moderate","settled_at":null}`},
		{"q1", "ops", settledJSON(3, 0.2, "critical", 0.79)},
		{"q2", "ops", `{"confidence":2,"category":"moderate","settled_at":"2026-08-01T00:00:00Z"}`},
		{"q3", "ops", `not json`},
		{"q4", nil, settledJSON(3, 0.2, "critical", 0.79)},
	})
	res, err := ReadResult(context.Background(), path, Options{Window: 5})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		ID      string
		Agent   string
		Day     int
		Conf    float64
		Outcome int
	}
	var got []row
	for _, f := range res.Forecasts {
		got = append(got, row{f.ID, f.Agent, f.At.Day(), f.Confidence, f.Outcome})
	}
	// negligible and moderate are right; anything else is wrong.
	want := []row{
		{"q1", "ops", 3, 0.2, 0},
		{"p3", "sales", 3, 0.7, 1}, {"p4", "sales", 4, 0.6, 1}, {"p5", "sales", 5, 0.5, 0},
		{"p6", "sales", 6, 0.4, 0}, {"p7", "sales", 7, 0.3, 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("forecasts (-want +got):\n%s", diff)
	}
	// Levels: 0.19 as expected; 0.2 minor (< 0.5); 0.5 clear (< 0.8);
	// 0.8 severe; 0.79 clear; p7 has none.
	wantDist := map[string]forecast.ErrorDistribution{
		"sales": {AsExpected: 1, MinorMiss: 1, ClearMiss: 1, SevereMiss: 1, Missing: 1},
		"ops":   {ClearMiss: 1},
	}
	if diff := cmp.Diff(wantDist, res.Errors); diff != "" {
		t.Errorf("error distribution (-want +got):\n%s", diff)
	}
	var bad []string
	for _, b := range res.BadRows {
		bad = append(bad, fmt.Sprintf("%d:%s", b.Line, b.Field))
	}
	if diff := cmp.Diff([]string{"10:confidence", "11:prediction_json", "12:agent_id"}, bad); diff != "" {
		t.Errorf("bad rows (-want +got):\n%s", diff)
	}
	if res.Unsettled != 1 || res.Dropped != 2 {
		t.Errorf("unsettled %d dropped %d, want 1 and 2", res.Unsettled, res.Dropped)
	}
	f := res.Forecasts[1]
	if f.Fields["fidelity"] != "full" || f.Fields["agent_id"] != "sales" || f.Kind != forecast.Binary || !f.At.Equal(time.Date(2026, 8, 3, 12, 0, 0, 0, time.UTC)) {
		t.Errorf("forecast fields: %+v", f)
	}
}

func TestReadSQLiteDefaultWindowIsFiveThousand(t *testing.T) {
	var rows [][3]any
	for i := 0; i < DefaultWindow+3; i++ {
		js := fmt.Sprintf(`{"confidence":0.5,"category":"moderate","settled_at":"%s"}`, time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC).Format(time.RFC3339))
		rows = append(rows, [3]any{fmt.Sprintf("p%05d", i), "a", js})
	}
	path := predictionDB(t, rows)
	fs, dist, err := Read(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != DefaultWindow || fs[0].ID != "p00003" || dist["a"].Missing != DefaultWindow {
		t.Errorf("%d forecasts from %s, want 5000 from p00003", len(fs), fs[0].ID)
	}
}

func TestReadSQLiteOpensReadOnly(t *testing.T) {
	path := predictionDB(t, [][3]any{{"p1", "a", settledJSON(1, 0.9, "negligible", 0.1)}})
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Read(context.Background(), path, Options{}); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Error("reading changed the database file")
	}
	missing := filepath.Join(t.TempDir(), "none.db")
	if _, _, err := Read(context.Background(), missing, Options{}); err == nil {
		t.Error("missing database: no error")
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Error("reading a missing database created it")
	}
}

func TestReadSQLiteErrors(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.db")
	db, err := sql.Open("sqlite", empty)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE other (x)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, _, err := Read(context.Background(), empty, Options{}); err == nil {
		t.Error("database without task_prediction_log: no error")
	}
	if _, _, err := Read(context.Background(), empty, Options{Window: -1}); err == nil {
		t.Error("negative window: no error")
	}
	notDB := filepath.Join(t.TempDir(), "text.db")
	if err := os.WriteFile(notDB, []byte("hello, not a database at all, just text padding it out"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Read(context.Background(), notDB, Options{}); err == nil {
		t.Error("text file: no error")
	}
}

func TestReadSQLiteExampleDatabaseMatchesPythonCounts(t *testing.T) {
	// Counts from Python's sqlite3 + json over testdata/sqlite/prediction.db
	// (see make_example.py): per agent, settled rows, right rows, levels.
	fs, dist, err := Read(context.Background(), "../../testdata/sqlite/prediction.db", Options{})
	if err != nil {
		t.Fatal(err)
	}
	n, right := map[string]int{}, map[string]int{}
	for _, f := range fs {
		n[f.Agent]++
		right[f.Agent] += f.Outcome
	}
	if diff := cmp.Diff(map[string]int{"coder": 57, "support": 57}, n); diff != "" {
		t.Errorf("settled (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"coder": 36, "support": 33}, right); diff != "" {
		t.Errorf("right (-want +got):\n%s", diff)
	}
	want := map[string]forecast.ErrorDistribution{
		"coder":   {AsExpected: 14, MinorMiss: 30, ClearMiss: 6, SevereMiss: 7},
		"support": {AsExpected: 12, MinorMiss: 27, ClearMiss: 15, SevereMiss: 3},
	}
	if diff := cmp.Diff(want, dist); diff != "" {
		t.Errorf("distribution (-want +got):\n%s", diff)
	}
}
