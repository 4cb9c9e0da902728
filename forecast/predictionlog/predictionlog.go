// Package predictionlog reads the settled rows of DuDuClaw's
// task_prediction_log table from an SQLite database as forecasts (evalcal
// score --sqlite). It is a package of its own so that the SQLite driver is
// linked only into programs that read such a database.
package predictionlog

import (
	"container/heap"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/evalcal/evalcal/forecast"
	"io"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	// The pure-Go SQLite driver, registered as "sqlite".
	_ "modernc.org/sqlite"
)

// DefaultWindow is how many of an agent's newest settled rows are
// scored by default (the dashboard's bounded window, issue 4).
const DefaultWindow = 5000

// DefaultBusyTimeout is how long a read waits for a database that
// another process has locked before failing ("database is locked").
const DefaultBusyTimeout = 5 * time.Second

// Options configures ReadSQLite.
type Options struct {
	// Window is how many of each agent's newest settled rows (by
	// settled_at) are read; 0 means DefaultWindow. Negative is an
	// error.
	Window int
	// BusyTimeout is how long to wait for a locked database; 0 means
	// DefaultBusyTimeout. Negative is an error.
	BusyTimeout time.Duration
}

// Result is what ReadResult reads from a prediction log.
type Result struct {
	// Forecasts are forecast.Binary, sorted by agent then At (settled_at).
	Forecasts []forecast.Forecast
	// Errors is the composite_error distribution per agent over the same
	// rows.
	Errors map[string]forecast.ErrorDistribution
	// BadRows are rows that could not be read: File is the database,
	// Line the row's position in the table (1-based).
	BadRows []forecast.BadLine
	// Unsettled counts rows without settled_at, which are not scored.
	Unsettled int
	// Dropped counts settled rows beyond the window.
	Dropped int
}

// ReadSQLite reads the settled rows of the task_prediction_log table of
// the SQLite database at path (read-only) as forecast.Binary forecasts, with the
// composite_error distribution per agent. See ReadResult.
func Read(ctx context.Context, path string, opts Options) ([]forecast.Forecast, map[string]forecast.ErrorDistribution, error) {
	res, err := ReadResult(ctx, path, opts)
	if err != nil {
		return nil, nil, err
	}
	return res.Forecasts, res.Errors, nil
}

// sqliteRow is one settled row.
type sqliteRow struct {
	f        forecast.Forecast
	errValue float64
	hasError bool
}

// ReadResult reads the task_prediction_log table (columns
// prediction_id, agent_id, prediction_json) of the database at path,
// which must be a regular file; it is never written (see
// openPredictionLog for how WAL databases and read-only directories are
// handled). prediction_json holds confidence (in [0, 1]), category,
// settled_at (RFC 3339; null or absent = not settled) and
// composite_error (>= 0). A settled row becomes a forecast.Binary forecast with
// Confidence = confidence and Outcome 1 when category is "negligible" or
// "moderate" (right), else 0; At is settled_at; Fields holds
// prediction_json's scalar fields as text plus prediction_id and
// agent_id. Per agent, the newest opts.Window settled rows are kept
// (newest by settled_at, then prediction_id, then the earlier row) and
// returned oldest first. Rows that cannot be read are reported in BadRows
// (Line is the row's position in the table, 1-based), never fatal.
//
// Rows are streamed: memory is O(agents x window), whatever the table's
// size. A database locked by another process is waited for up to
// opts.BusyTimeout. It returns an error when the database cannot be
// opened or queried, or ctx is done (ctx.Err()).
func ReadResult(ctx context.Context, path string, opts Options) (Result, error) {
	window := opts.Window
	if window == 0 {
		window = DefaultWindow
	}
	if window < 0 {
		return Result{}, fmt.Errorf("forecast: sqlite window %d must be positive", opts.Window)
	}
	busy := opts.BusyTimeout
	if busy == 0 {
		busy = DefaultBusyTimeout
	}
	if busy < 0 {
		return Result{}, fmt.Errorf("forecast: sqlite busy timeout %v must be positive", opts.BusyTimeout)
	}
	db, cleanup, err := openPredictionLog(path, busy)
	if err != nil {
		return Result{}, fmt.Errorf("forecast: sqlite %s: %w", path, err)
	}
	defer cleanup()
	rows, err := db.QueryContext(ctx, `SELECT prediction_id, agent_id, prediction_json FROM task_prediction_log`)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return Result{}, fmt.Errorf("forecast: sqlite %s: %w", path, err)
	}
	defer rows.Close()

	res := Result{Errors: map[string]forecast.ErrorDistribution{}}
	byAgent := map[string]*rowWindow{}
	for n := 1; rows.Next(); n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return Result{}, err
			}
		}
		var id, agent, js sql.NullString
		if err := rows.Scan(&id, &agent, &js); err != nil {
			res.BadRows = append(res.BadRows, forecast.BadLine{File: path, Line: n, Field: "row", Error: err.Error()})
			continue
		}
		r, settled, err := parsePredictionRow(id, agent, js)
		if err != nil {
			res.BadRows = append(res.BadRows, forecast.BadLineOf(path, n, err))
			continue
		}
		if !settled {
			res.Unsettled++
			continue
		}
		r.f.Source, r.f.Line = path, n
		w := byAgent[r.f.Agent]
		if w == nil {
			w = &rowWindow{size: window}
			byAgent[r.f.Agent] = w
		}
		if w.add(r) {
			res.Dropped++
		}
	}
	if err := rows.Err(); err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return Result{}, fmt.Errorf("forecast: sqlite %s: %w", path, err)
	}
	agents := make([]string, 0, len(byAgent))
	for a := range byAgent {
		agents = append(agents, a)
	}
	sort.Strings(agents)
	for _, a := range agents {
		rs := byAgent[a].rows
		sort.Slice(rs, func(i, j int) bool { return olderRow(&rs[i], &rs[j]) })
		var dist forecast.ErrorDistribution
		for i := range rs {
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

// olderRow orders settled rows from oldest to newest: by settled_at, then
// prediction_id, then the later row first (so that of two identical rows
// the earlier counts as newer and is kept, as a stable newest-first sort
// would keep it).
func olderRow(a, b *sqliteRow) bool {
	if !a.f.At.Equal(b.f.At) {
		return a.f.At.Before(b.f.At)
	}
	if a.f.ID != b.f.ID {
		return a.f.ID < b.f.ID
	}
	return a.f.Line > b.f.Line
}

// rowWindow keeps the newest size rows of one agent in a min-heap whose
// root is the oldest kept row.
type rowWindow struct {
	size int
	rows []sqliteRow
}

// add offers r; it returns true when a row (r or an older kept one) is
// dropped from the window.
func (w *rowWindow) add(r sqliteRow) bool {
	if len(w.rows) < w.size {
		w.rows = append(w.rows, r)
		heap.Push(w, nil) // fixes the heap up for the appended row
		return false
	}
	if !olderRow(&w.rows[0], &r) {
		return true // r is not newer than the oldest kept row
	}
	w.rows[0] = r
	heap.Fix(w, 0)
	return true
}

// heap.Interface over rows; Push is called after the row is appended.
func (w *rowWindow) Len() int           { return len(w.rows) }
func (w *rowWindow) Less(i, j int) bool { return olderRow(&w.rows[i], &w.rows[j]) }
func (w *rowWindow) Swap(i, j int)      { w.rows[i], w.rows[j] = w.rows[j], w.rows[i] }
func (w *rowWindow) Push(any)           {}
func (w *rowWindow) Pop() any {
	w.rows = w.rows[:len(w.rows)-1]
	return nil
}

// sqliteMagic starts every SQLite 3 database file.
const sqliteMagic = "SQLite format 3\x00"

// openPredictionLog opens the database at path for reading without ever
// writing it or creating files next to it:
//
//   - a rollback-journal database is opened read-only (mode=ro), waiting
//     up to busy for a writer's lock (PRAGMA busy_timeout);
//   - a WAL database whose -wal and -shm files both exist (a writer is
//     running, or one stopped) is opened read-only too: SQLite reads the
//     WAL through the existing -shm and creates nothing;
//   - a WAL database without a -wal file, or with an empty one, has all
//     its content in the main file: it is opened immutable=1, which takes
//     no locks and creates no -wal or -shm (mode=ro alone would leave
//     both behind, and fail in a read-only directory). The read is a
//     snapshot as of the last checkpoint;
//   - a WAL database with a non-empty -wal but no -shm (copied, or a
//     crashed writer's -shm removed) cannot be read in place without
//     creating a -shm, so the database and its WAL are copied to a
//     private temporary directory, read there, and removed.
//
// If a read-only open in place fails, the copy is tried before giving
// up. cleanup closes the database and removes any copy.
func openPredictionLog(path string, busy time.Duration) (db *sql.DB, cleanup func(), err error) {
	f, err := forecast.OpenRegular(path, math.MaxInt64)
	if err != nil {
		return nil, nil, err
	}
	var header [100]byte
	n, err := io.ReadFull(f, header[:])
	f.Close()
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, nil, err
	}
	if n < len(header) || string(header[:len(sqliteMagic)]) != sqliteMagic {
		return nil, nil, errors.New("not an SQLite 3 database (no \"SQLite format 3\" header)")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, err
	}
	ms := strconv.FormatInt(max(1, busy.Milliseconds()), 10)
	wal := header[18] == 2 && header[19] == 2 // file format versions 2: WAL
	walSize, walErr := fileSize(abs + "-wal")
	_, shmErr := fileSize(abs + "-shm")
	switch {
	case !wal:
		return openSQLiteURI(abs, "mode=ro", ms, nil)
	case walErr == nil && shmErr == nil:
		db, cleanup, err := openSQLiteURI(abs, "mode=ro", ms, nil)
		if err == nil {
			return db, cleanup, nil
		}
		return openSQLiteCopy(abs, ms)
	case walErr != nil || walSize == 0:
		return openSQLiteURI(abs, "mode=ro&immutable=1", ms, nil)
	}
	return openSQLiteCopy(abs, ms)
}

// fileSize is the size of the regular file at path.
func fileSize(path string) (int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	if !fi.Mode().IsRegular() {
		return 0, fmt.Errorf("%s: not a regular file", path)
	}
	return fi.Size(), nil
}

// openSQLiteURI opens the database at abs with SQLite URI parameters
// query and a busy timeout of ms milliseconds, and checks that it can be
// read (sql.Open connects lazily). onClose runs after the database is
// closed.
func openSQLiteURI(abs, query, ms string, onClose func()) (*sql.DB, func(), error) {
	dsn := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs),
		RawQuery: query + "&_pragma=" + url.QueryEscape("busy_timeout("+ms+")")}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		if onClose != nil {
			onClose()
		}
		return nil, nil, err
	}
	db.SetMaxOpenConns(1)
	cleanup := func() {
		db.Close()
		if onClose != nil {
			onClose()
		}
	}
	var v int
	if err := db.QueryRow(`PRAGMA schema_version`).Scan(&v); err != nil {
		cleanup()
		return nil, nil, err
	}
	return db, cleanup, nil
}

// openSQLiteCopy copies the WAL database at abs and its -wal file to a
// private temporary directory and opens the copy read-only; the copy is
// removed by cleanup.
func openSQLiteCopy(abs, ms string) (*sql.DB, func(), error) {
	dir, err := os.MkdirTemp("", "evalcal-sqlite-")
	if err != nil {
		return nil, nil, err
	}
	remove := func() { os.RemoveAll(dir) }
	dst := filepath.Join(dir, "copy.db")
	for _, suffix := range []string{"", "-wal"} {
		if err := copyRegularFile(abs+suffix, dst+suffix); err != nil && !(suffix != "" && errors.Is(err, fs.ErrNotExist)) {
			remove()
			return nil, nil, err
		}
	}
	return openSQLiteURI(dst, "mode=ro", ms, remove)
}

// copyRegularFile copies the regular file src to a new file dst.
func copyRegularFile(src, dst string) error {
	in, err := forecast.OpenRegular(src, math.MaxInt64)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// parsePredictionRow reads one row (forecast.DecodePredictionRow); settled
// is false for a row without settled_at.
func parsePredictionRow(id, agent, js sql.NullString) (sqliteRow, bool, error) {
	var raw []byte
	if js.Valid {
		raw = []byte(js.String)
	}
	r, settled, err := forecast.DecodePredictionRow(id.String, agent.String, raw)
	if err != nil || !settled {
		return sqliteRow{}, settled, err
	}
	return sqliteRow{f: r.Forecast, errValue: r.CompositeError, hasError: r.HasError}, true, nil
}
