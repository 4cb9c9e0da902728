package predictionlog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/evalcal/evalcal/forecast"
	"github.com/evalcal/evalcal/internal/testutil"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// windowByFullSort is the window rule as ReadResult applied it
// before it streamed rows (kept here as the reference): load every
// settled row, sort each agent's newest first (stable, by settled_at then
// prediction_id), keep the first window, return them oldest first.
func windowByFullSort(rows []sqliteRow, window int) (kept []forecast.Forecast, dropped int) {
	byAgent := map[string][]sqliteRow{}
	for _, r := range rows {
		byAgent[r.f.Agent] = append(byAgent[r.f.Agent], r)
	}
	agents := make([]string, 0, len(byAgent))
	for a := range byAgent {
		agents = append(agents, a)
	}
	sort.Strings(agents)
	for _, a := range agents {
		rs := byAgent[a]
		sort.SliceStable(rs, func(i, j int) bool {
			if !rs[i].f.At.Equal(rs[j].f.At) {
				return rs[i].f.At.After(rs[j].f.At)
			}
			return rs[i].f.ID > rs[j].f.ID
		})
		if len(rs) > window {
			dropped += len(rs) - window
			rs = rs[:window]
		}
		for i := len(rs) - 1; i >= 0; i-- {
			kept = append(kept, rs[i].f)
		}
	}
	return kept, dropped
}

// looseDB builds a prediction log without a primary key, so that ids may
// repeat, with the given (id, agent, prediction_json) rows.
func looseDB(t *testing.T, dir string, rows [][3]string) string {
	t.Helper()
	path := filepath.Join(dir, "loose.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE task_prediction_log (prediction_id TEXT, agent_id TEXT, prediction_json TEXT)`); err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if _, err := tx.Exec(`INSERT INTO task_prediction_log VALUES (?, ?, ?)`, r[0], r[1], r[2]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadSQLiteStreamedWindowMatchesFullSort(t *testing.T) {
	// Property: on random tables with many ties (few distinct settled_at
	// values, repeated ids) the bounded per-agent heap keeps exactly the
	// rows, in the order, of the full sort it replaced (issue 13 item 8).
	for seed := range uint64(12) {
		rng := rand.New(rand.NewPCG(seed, 99))
		var rows [][3]string
		for range 50 + rng.IntN(300) {
			at := time.Date(2026, 8, 1+rng.IntN(4), rng.IntN(3), 0, 0, 0, time.UTC)
			js := fmt.Sprintf(`{"confidence":%.2f,"category":"moderate","settled_at":%q,"composite_error":%.2f}`,
				rng.Float64(), at.Format(time.RFC3339), rng.Float64())
			if rng.IntN(10) == 0 {
				js = `{"confidence":0.5,"category":"moderate"}` // not settled
			}
			rows = append(rows, [3]string{fmt.Sprintf("p%d", rng.IntN(40)), fmt.Sprintf("agent%d", rng.IntN(3)), js})
		}
		path := looseDB(t, t.TempDir(), rows)
		for _, window := range []int{1, 3, 17, 1000} {
			res, err := ReadResult(context.Background(), path, Options{Window: window})
			if err != nil {
				t.Fatal(err)
			}
			var settled []sqliteRow
			for i, r := range rows {
				sr, ok, err := parsePredictionRow(sql.NullString{String: r[0], Valid: true}, sql.NullString{String: r[1], Valid: true}, sql.NullString{String: r[2], Valid: true})
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					sr.f.Source, sr.f.Line = path, i+1
					settled = append(settled, sr)
				}
			}
			want, dropped := windowByFullSort(settled, window)
			if diff := cmp.Diff(want, res.Forecasts, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("seed %d window %d (-full sort +streamed):\n%s", seed, window, diff)
			}
			if res.Dropped != dropped {
				t.Errorf("seed %d window %d: dropped %d, want %d", seed, window, res.Dropped, dropped)
			}
		}
	}
}

func TestReadSQLiteMemoryIsBoundedByTheWindow(t *testing.T) {
	// 20,000 settled rows of about 2 KB each (a long scalar note, which
	// Fields keeps): loading them all, as before, holds over 40 MB; with a
	// window of 10 the reader holds ten rows and the driver's page cache.
	if testing.Short() {
		t.Skip("builds a 45 MB database; skipped with -short")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "big.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE task_prediction_log (prediction_id TEXT, agent_id TEXT, prediction_json TEXT)`); err != nil {
		t.Fatal(err)
	}
	note := strings.Repeat("n", 2000)
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20000 {
		js := fmt.Sprintf(`{"confidence":0.5,"category":"moderate","settled_at":"%s","note":"%s%d"}`,
			time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC).Format(time.RFC3339), note, i)
		if _, err := tx.Exec(`INSERT INTO task_prediction_log VALUES (?, ?, ?)`, fmt.Sprintf("p%05d", i), "a", js); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	var res Result
	probe, _ := testutil.PeakHeap(func() error {
		res, err = ReadResult(context.Background(), path, Options{Window: 10})
		return nil
	})
	peak := probe.Peak
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Forecasts) != 10 || res.Forecasts[0].ID != "p19990" || res.Dropped != 19990 {
		t.Fatalf("%d forecasts from %s, %d dropped; want 10 from p19990, 19990 dropped", len(res.Forecasts), res.Forecasts[0].ID, res.Dropped)
	}
	t.Logf("peak heap objects %.1f MB", float64(peak)/1e6)
	if peak > 25e6 {
		t.Errorf("peak heap %.1f MB reading 20,000 rows with a window of 10; want under 25 MB", float64(peak)/1e6)
	}
}

func TestReadSQLiteWaitsForALockedDatabase(t *testing.T) {
	// Another connection holds an exclusive lock on a rollback-journal
	// database for 300 ms: the read waits (busy timeout) instead of
	// failing with "database is locked".
	path := predictionDB(t, [][3]any{{"p1", "a", settledJSON(1, 0.9, "negligible", 0.1)}})
	lock := func(t *testing.T) (release func()) {
		t.Helper()
		w, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		w.SetMaxOpenConns(1)
		conn, err := w.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(context.Background(), `BEGIN EXCLUSIVE`); err != nil {
			t.Fatal(err)
		}
		return func() {
			conn.ExecContext(context.Background(), `ROLLBACK`)
			conn.Close()
			w.Close()
		}
	}
	release := lock(t)
	go func() {
		time.Sleep(300 * time.Millisecond)
		release()
	}()
	res, err := ReadResult(context.Background(), path, Options{})
	if err != nil || len(res.Forecasts) != 1 {
		t.Fatalf("read under a 300 ms lock: %d forecasts, %v", len(res.Forecasts), err)
	}
	// A lock held longer than the timeout is an error, after the timeout.
	release = lock(t)
	defer release()
	start := time.Now()
	_, err = ReadResult(context.Background(), path, Options{BusyTimeout: 100 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "locked") {
		t.Errorf("read under a held lock: %v, want a 'database is locked' error", err)
	}
	if d := time.Since(start); d < 90*time.Millisecond || d > 3*time.Second {
		t.Errorf("gave up after %v, want about the 100 ms timeout", d)
	}
}

// walWriter creates a WAL database in dir with n settled rows, whose last
// rows stay in the -wal file (no checkpoint), and returns it open: the
// caller closes it.
func walWriter(t *testing.T, dir string, n int) (*sql.DB, string) {
	t.Helper()
	path := filepath.Join(dir, "wal.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		`PRAGMA journal_mode=WAL`,
		`CREATE TABLE task_prediction_log (prediction_id TEXT PRIMARY KEY, agent_id TEXT, prediction_json TEXT)`,
		`PRAGMA wal_checkpoint(TRUNCATE)`, // the table is in the main file
		`PRAGMA wal_autocheckpoint=0`,     // the rows stay in the WAL
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	for i := range n {
		if _, err := db.Exec(`INSERT INTO task_prediction_log VALUES (?, ?, ?)`, fmt.Sprintf("p%d", i), "a", settledJSON(1+i%28, 0.7, "moderate", 0.1)); err != nil {
			t.Fatal(err)
		}
	}
	return db, path
}

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestReadSQLiteWALDatabasesLeaveNoFilesBehind(t *testing.T) {
	// A checkpointed WAL database (no -wal, no -shm): mode=ro alone
	// creates both and leaves them; the read must create nothing.
	dir := t.TempDir()
	db, path := walWriter(t, dir, 0)
	if _, err := db.Exec(`INSERT INTO task_prediction_log VALUES ('p1', 'a', ?)`, settledJSON(1, 0.7, "moderate", 0.1)); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil { // the last connection checkpoints and removes -wal and -shm
		t.Fatal(err)
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{"wal.db"}) {
		t.Fatalf("setup: directory holds %v", got)
	}
	res, err := ReadResult(context.Background(), path, Options{})
	if err != nil || len(res.Forecasts) != 1 {
		t.Fatalf("checkpointed WAL database: %d forecasts, %v", len(res.Forecasts), err)
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{"wal.db"}) {
		t.Errorf("after reading a checkpointed WAL database the directory holds %v, want only wal.db", got)
	}
}

func TestReadSQLiteReadsRowsStillInTheWAL(t *testing.T) {
	// A live writer: 30 rows exist only in the -wal file. The read sees
	// all of them through the existing -shm and adds no file.
	dir := t.TempDir()
	db, path := walWriter(t, dir, 30)
	defer db.Close()
	before := dirNames(t, dir)
	res, err := ReadResult(context.Background(), path, Options{})
	if err != nil || len(res.Forecasts) != 30 {
		t.Fatalf("live WAL database: %d forecasts, %v; want 30", len(res.Forecasts), err)
	}
	if got := dirNames(t, dir); !slices.Equal(got, before) {
		t.Errorf("directory %v after the read, %v before", got, before)
	}

	// The same database and WAL copied without -shm (a crashed writer's
	// files, or a backup): the WAL's rows are read, and no -shm is left.
	copyDir := t.TempDir()
	for _, name := range []string{"wal.db", "wal.db-wal"} {
		if err := copyRegularFile(filepath.Join(dir, name), filepath.Join(copyDir, name)); err != nil {
			t.Fatal(err)
		}
	}
	res, err = ReadResult(context.Background(), filepath.Join(copyDir, "wal.db"), Options{})
	if err != nil || len(res.Forecasts) != 30 {
		t.Fatalf("copied WAL database without -shm: %d forecasts, %v; want 30", len(res.Forecasts), err)
	}
	if got := dirNames(t, copyDir); !slices.Equal(got, []string{"wal.db", "wal.db-wal"}) {
		t.Errorf("after the read the directory holds %v, want wal.db and wal.db-wal only", got)
	}
}

func TestReadSQLiteInAReadOnlyDirectory(t *testing.T) {
	// A checkpointed WAL database and a WAL database with rows in its
	// -wal (no -shm), in a directory nobody may write to.
	if os.Geteuid() == 0 {
		t.Skip("root ignores directory permissions")
	}
	for _, withWAL := range []bool{false, true} {
		dir := t.TempDir()
		src := t.TempDir()
		db, path := walWriter(t, src, 5)
		if !withWAL {
			db.Close()
		}
		names := []string{"wal.db"}
		if withWAL {
			names = append(names, "wal.db-wal")
		}
		for _, name := range names {
			if err := copyRegularFile(filepath.Join(src, name), filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
		if withWAL {
			db.Close()
		}
		_ = path
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		res, err := ReadResult(context.Background(), filepath.Join(dir, "wal.db"), Options{})
		if err != nil || len(res.Forecasts) != 5 {
			t.Errorf("read-only directory, rows in WAL %v: %d forecasts, %v; want 5", withWAL, len(res.Forecasts), err)
		}
	}
}

func TestReadSQLiteNegativeCompositeErrorIsABadRow(t *testing.T) {
	// Issue 13 item 25: a negative composite_error is not "as expected".
	path := predictionDB(t, [][3]any{
		{"p1", "a", settledJSON(1, 0.9, "negligible", -0.3)},
		{"p2", "a", settledJSON(2, 0.9, "negligible", 0.1)},
	})
	res, err := ReadResult(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.BadRows) != 1 || res.BadRows[0].Line != 1 || res.BadRows[0].Field != "composite_error" || !strings.Contains(res.BadRows[0].Error, ">= 0") {
		t.Errorf("bad rows %+v, want row 1 field composite_error", res.BadRows)
	}
	if d := res.Errors["a"]; d != (forecast.ErrorDistribution{AsExpected: 1}) || len(res.Forecasts) != 1 {
		t.Errorf("distribution %+v over %d forecasts, want the one good row as expected", d, len(res.Forecasts))
	}
}

func TestReadSQLiteRefusesNonRegularFilesAndStopsOnCancel(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadResult(context.Background(), dir, Options{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: %v, want 'not a regular file'", err)
	}
	path := predictionDB(t, [][3]any{{"p1", "a", settledJSON(1, 0.9, "negligible", 0.1)}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadResult(ctx, path, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}
