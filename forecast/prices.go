package forecast

import (
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// PriceWindow is how long after a call's due time a price may resolve it
// (issue 4: the first price in [due, due + 2h)).
const PriceWindow = 2 * time.Hour

// PricePoint is one recorded price of a pool.
type PricePoint struct {
	At    time.Time
	Price float64
}

// pricePoint is the compact form kept in memory (16 bytes a price).
type pricePoint struct {
	ts    int64 // Unix nanoseconds
	price float64
}

// Prices holds the recorded prices of every pool, each pool's prices
// sorted by time so that a window is found by binary search.
type Prices struct {
	pools  map[string][]pricePoint
	sorted bool
}

// NewPrices returns an empty price table.
func NewPrices() *Prices {
	return &Prices{pools: map[string][]pricePoint{}, sorted: true}
}

// Add records a price. Call Sort after the last Add; until then First
// falls back to a linear scan.
func (p *Prices) Add(pool string, at time.Time, price float64) {
	s := p.pools[pool]
	ts := at.UnixNano()
	if n := len(s); n > 0 && s[n-1].ts > ts {
		p.sorted = false
	}
	p.pools[pool] = append(s, pricePoint{ts: ts, price: price})
}

// Sort orders every pool's prices by time, keeping the recorded order of
// prices with the same time (the first recorded stays first). It is
// O(n log n) in the number of prices.
func (p *Prices) Sort() {
	if p.sorted {
		return
	}
	for _, s := range p.pools {
		slices.SortStableFunc(s, func(a, b pricePoint) int { return cmp.Compare(a.ts, b.ts) })
	}
	p.sorted = true
}

// Len returns the number of prices held.
func (p *Prices) Len() int {
	n := 0
	for _, s := range p.pools {
		n += len(s)
	}
	return n
}

// First returns the first price of pool with from <= At < to, by binary
// search (O(log n)); ok is false when there is none.
func (p *Prices) First(pool string, from, to time.Time) (pt PricePoint, ok bool) {
	s := p.pools[pool]
	lo, hi := from.UnixNano(), to.UnixNano()
	i := 0
	if p.sorted {
		i = sort.Search(len(s), func(i int) bool { return s[i].ts >= lo })
	} else {
		// Unsorted: the earliest qualifying price, first recorded on ties.
		best := -1
		for j, q := range s {
			if q.ts >= lo && q.ts < hi && (best < 0 || q.ts < s[best].ts) {
				best = j
			}
		}
		if best < 0 {
			return PricePoint{}, false
		}
		i = best
	}
	if i >= len(s) || s[i].ts >= hi {
		return PricePoint{}, false
	}
	return PricePoint{At: time.Unix(0, s[i].ts).UTC(), Price: s[i].price}, true
}

// ReadPrices reads prices as CSV with a header naming the columns pool,
// ts and price (any order, other columns ignored), or as JSONL objects
// {"pool", "ts", "price"}; a first non-blank line starting with '{'
// selects JSONL. ts is RFC 3339 and price a finite number > 0. Bad lines
// are reported with file, line and field and skipped. The result is
// sorted (see Sort). It returns an error when r cannot be read, ctx is
// done, or a CSV header lacks a required column.
func ReadPrices(ctx context.Context, r io.Reader, file string) (*Prices, []BadLine, error) {
	p := NewPrices()
	var bad []BadLine
	var cols *priceColumns
	jsonl := false
	started := false
	err := eachLine(ctx, r, func(line []byte, n int) error {
		if !started {
			started = true
			if bytes.TrimSpace(line)[0] == '{' {
				jsonl = true
			} else {
				c, err := parsePriceHeader(line)
				if err != nil {
					return fmt.Errorf("line %d: %w", n, err)
				}
				cols = &c
				return nil
			}
		}
		var (
			pool  string
			at    time.Time
			price float64
			err   error
		)
		if jsonl {
			pool, at, price, err = parsePriceJSON(line)
		} else {
			pool, at, price, err = cols.parse(line)
		}
		if err != nil {
			bad = append(bad, badLineOf(file, n, err))
			return nil
		}
		p.Add(pool, at, price)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("forecast: read prices %s: %w", file, err)
	}
	p.Sort()
	return p, bad, nil
}

// priceColumns are the positions of pool, ts and price in a CSV row.
type priceColumns struct{ pool, ts, price, n int }

func parsePriceHeader(line []byte) (priceColumns, error) {
	rec, err := splitCSV(line)
	if err != nil {
		return priceColumns{}, fmt.Errorf("csv header: %w", err)
	}
	c := priceColumns{pool: -1, ts: -1, price: -1, n: len(rec)}
	for i, name := range rec {
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "pool":
			c.pool = i
		case "ts":
			c.ts = i
		case "price":
			c.price = i
		}
	}
	if c.pool < 0 || c.ts < 0 || c.price < 0 {
		return priceColumns{}, fmt.Errorf("csv header %q must name the columns pool, ts and price", strings.TrimSpace(string(line)))
	}
	return c, nil
}

func (c *priceColumns) parse(line []byte) (string, time.Time, float64, error) {
	rec, err := splitCSV(line)
	if err != nil {
		return "", time.Time{}, 0, err
	}
	if len(rec) != c.n {
		return "", time.Time{}, 0, fmt.Errorf("%d fields, header has %d", len(rec), c.n)
	}
	pool := strings.TrimSpace(rec[c.pool])
	if pool == "" {
		return "", time.Time{}, 0, fieldErrorf("pool", "missing")
	}
	at, err := parseTimestamp("ts", strings.TrimSpace(rec[c.ts]))
	if err != nil {
		return "", time.Time{}, 0, err
	}
	price, err := parsePrice(strings.TrimSpace(rec[c.price]))
	if err != nil {
		return "", time.Time{}, 0, err
	}
	return pool, at, price, nil
}

// splitCSV splits one CSV line; quoted fields go through encoding/csv.
func splitCSV(line []byte) ([]string, error) {
	line = bytes.TrimRight(line, "\r\n")
	if bytes.IndexByte(line, '"') < 0 {
		return strings.Split(string(line), ","), nil
	}
	cr := csv.NewReader(bytes.NewReader(line))
	cr.FieldsPerRecord = -1
	rec, err := cr.Read()
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("bad csv: %w", err)
	}
	return rec, nil
}

func parsePrice(s string) (float64, error) {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, fieldErrorf("price", "not a finite number: %q", s)
	}
	if !(x > 0) {
		return 0, fieldErrorf("price", "%v must be > 0", x)
	}
	return x, nil
}

func parsePriceJSON(line []byte) (string, time.Time, float64, error) {
	raw, err := decodeObject(line)
	if err != nil {
		return "", time.Time{}, 0, err
	}
	pool, err := raw.required("pool")
	if err != nil {
		return "", time.Time{}, 0, err
	}
	at, err := raw.time("ts")
	if err != nil {
		return "", time.Time{}, 0, err
	}
	price, ok, err := raw.number("price")
	if err != nil {
		return "", time.Time{}, 0, err
	}
	if !ok {
		return "", time.Time{}, 0, fieldErrorf("price", "missing")
	}
	if !(price > 0) {
		return "", time.Time{}, 0, fieldErrorf("price", "%v must be > 0", price)
	}
	return pool, at, price, nil
}
