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

// ReadPrices is ReadPricesWithLimits with the default limits.
func ReadPrices(ctx context.Context, r io.Reader, file string) (*Prices, []BadLine, error) {
	return ReadPricesWithLimits(ctx, r, file, ReadLimits{})
}

// ReadPricesFile reads prices (ReadPricesWithLimits) from the file at
// path, which must be a regular file (a FIFO or device is refused before
// it is opened) no larger than lim.MaxFileBytes.
func ReadPricesFile(ctx context.Context, path string, lim ReadLimits) (*Prices, []BadLine, error) {
	l, err := lim.resolve()
	if err != nil {
		return nil, nil, fmt.Errorf("forecast: read prices %s: %w", path, err)
	}
	f, err := OpenRegular(path, l.MaxFileBytes)
	if err != nil {
		return nil, nil, fmt.Errorf("forecast: read prices: %w", err)
	}
	defer f.Close()
	return ReadPricesWithLimits(ctx, f, path, lim)
}

// ReadPricesWithLimits reads prices as CSV with a header naming the
// columns pool, ts and price (any order, other columns ignored), or as
// JSONL objects {"pool", "ts", "price"}; a first non-blank line starting
// with '{' selects JSONL. ts is RFC 3339 and price a finite number > 0. A
// UTF-8 byte-order mark at the start of r is skipped; CRLF line ends are
// accepted. Bad lines (including lines longer than lim.MaxLineBytes,
// lines holding a NUL byte, and lines starting with or, in CSV, holding a
// byte-order mark) are reported with file, line and field and skipped.
// Lines are parsed on every core and added in input order, so prices with
// the same time keep their order. The result is sorted (see Sort); it
// holds 16 bytes a price. It returns an error when r cannot be read,
// holds more than lim.MaxFileBytes bytes (ErrInputTooLarge), ctx is done,
// or a CSV header lacks a required column.
func ReadPricesWithLimits(ctx context.Context, r io.Reader, file string, lim ReadLimits) (*Prices, []BadLine, error) {
	lim, err := lim.resolve()
	if err != nil {
		return nil, nil, fmt.Errorf("forecast: read prices %s: %w", file, err)
	}
	pr := &priceReader{file: file, maxLine: lim.MaxLineBytes}
	cr := newChunkReader(r, lim, 1)
	// The first non-blank line decides the format: read chunks here until
	// it is found, then parse the rest on every core.
	for pr.format == priceFormatUnknown {
		c, err := cr.next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("forecast: read prices %s: %w", file, err)
		}
		err = pr.deliver(pr.parseChunk(c))
		cr.release(c)
		if err != nil {
			return nil, nil, fmt.Errorf("forecast: read prices %s: %w", file, err)
		}
	}
	if pr.format != priceFormatUnknown {
		if err := forEachChunk(ctx, cr, readWorkers(), pr.parseChunk, pr.deliver); err != nil {
			return nil, nil, fmt.Errorf("forecast: read prices %s: %w", file, err)
		}
	}
	return pr.prices(), pr.bad, nil
}

type priceFormat int

const (
	priceFormatUnknown priceFormat = iota
	priceFormatCSV
	priceFormatJSONL
)

// priceReader holds the state of ReadPricesWithLimits: the format and
// CSV columns, set by the first non-blank line before any parallel work,
// and the prices and bad lines, changed only by deliver.
type priceReader struct {
	file    string
	maxLine int
	format  priceFormat
	cols    priceColumns
	// headerErr is set when the CSV header is bad: the read fails.
	headerErr error
	bad       []BadLine
	// index maps a pool to its position in pools and series.
	index    map[string]int
	pools    []string
	series   [][]pricePoint
	unsorted bool
}

// priceLine is one parsed line: a price, a bad line (err), or the header.
type priceLine struct {
	n     int
	err   error
	pool  []byte // points into the chunk, valid until deliver returns
	ts    int64
	price float64
}

// parseChunk parses the lines of c. While the format is unknown it runs
// alone (on the reading goroutine) and sets it from the first non-blank
// line.
func (pr *priceReader) parseChunk(c *lineChunk) []priceLine {
	out := make([]priceLine, 0, bytes.Count(c.data, []byte{'\n'})+1)
	c.each(pr.maxLine, func(line []byte, n int) {
		if pr.format == priceFormatUnknown {
			if bytes.TrimSpace(line)[0] == '{' {
				pr.format = priceFormatJSONL
			} else {
				cols, err := parsePriceHeader(line)
				if err != nil {
					pr.headerErr = fmt.Errorf("line %d: %w", n, err)
				}
				pr.cols, pr.format = cols, priceFormatCSV
				return
			}
		}
		var l priceLine
		var err error
		if pr.format == priceFormatJSONL {
			l, err = parsePriceJSON(line)
		} else {
			l, err = pr.cols.parse(line)
		}
		l.n = n
		if err != nil {
			l = priceLine{n: n, err: err}
		}
		out = append(out, l)
	}, func(n int, err error) {
		if pr.format == priceFormatUnknown {
			// The first line decides the format: it cannot be skipped.
			pr.headerErr = fmt.Errorf("line %d: %w; the first line decides between CSV and JSONL", n, err)
			pr.format = priceFormatCSV
			return
		}
		out = append(out, priceLine{n: n, err: err})
	})
	return out
}

// deliver adds the prices of one chunk in order.
func (pr *priceReader) deliver(lines []priceLine) error {
	if pr.headerErr != nil {
		return pr.headerErr
	}
	for i := range lines {
		l := &lines[i]
		if l.err != nil {
			pr.bad = append(pr.bad, BadLineOf(pr.file, l.n, l.err))
			continue
		}
		k, ok := pr.index[string(l.pool)] // no allocation for the lookup
		if !ok {
			if pr.index == nil {
				pr.index = map[string]int{}
			}
			k = len(pr.series)
			pr.index[string(l.pool)] = k
			pr.pools = append(pr.pools, string(l.pool))
			pr.series = append(pr.series, nil)
		}
		s := pr.series[k]
		if n := len(s); n > 0 && s[n-1].ts > l.ts {
			pr.unsorted = true
		}
		pr.series[k] = append(s, pricePoint{ts: l.ts, price: l.price})
	}
	return nil
}

// prices returns what deliver added as a sorted Prices.
func (pr *priceReader) prices() *Prices {
	p := NewPrices()
	for k, pool := range pr.pools {
		s := pr.series[k]
		if cap(s)-len(s) > len(s)/16 {
			// Drop append's spare capacity (up to a quarter of a large
			// pool): prices are the bulk of what calls keeps in memory.
			s = append(make([]pricePoint, 0, len(s)), s...)
		}
		p.pools[pool] = s
		pr.series[k] = nil
	}
	p.sorted = !pr.unsorted
	p.Sort()
	return p
}

// priceColumns are the positions of pool, ts and price in a CSV row.
type priceColumns struct{ pool, ts, price, n int }

func parsePriceHeader(line []byte) (priceColumns, error) {
	if bytes.Contains(line, utf8BOM) {
		return priceColumns{}, errors.New("csv header holds a UTF-8 byte-order mark (U+FEFF) other than at the start of the file")
	}
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

func (c *priceColumns) parse(line []byte) (priceLine, error) {
	line = bytes.TrimRight(line, "\r\n")
	if bytes.Contains(line, utf8BOM) {
		return priceLine{}, errors.New("holds a UTF-8 byte-order mark (U+FEFF); only the start of a file may carry one")
	}
	var pool, ts, price []byte
	if bytes.IndexByte(line, '"') < 0 {
		// Unquoted: cut the fields in place.
		i, rest := 0, line
		for {
			f := rest
			j := bytes.IndexByte(rest, ',')
			if j >= 0 {
				f, rest = rest[:j], rest[j+1:]
			}
			switch i {
			case c.pool:
				pool = f
			case c.ts:
				ts = f
			case c.price:
				price = f
			}
			i++
			if j < 0 {
				break
			}
		}
		if i != c.n {
			return priceLine{}, fmt.Errorf("%d fields, header has %d", i, c.n)
		}
	} else {
		rec, err := splitCSV(line)
		if err != nil {
			return priceLine{}, err
		}
		if len(rec) != c.n {
			return priceLine{}, fmt.Errorf("%d fields, header has %d", len(rec), c.n)
		}
		pool, ts, price = []byte(rec[c.pool]), []byte(rec[c.ts]), []byte(rec[c.price])
	}
	pool = bytes.TrimSpace(pool)
	if len(pool) == 0 {
		return priceLine{}, fieldErrorf("pool", "missing")
	}
	at, err := parseTimestampBytes("ts", bytes.TrimSpace(ts))
	if err != nil {
		return priceLine{}, err
	}
	x, err := parsePriceBytes(bytes.TrimSpace(price))
	if err != nil {
		return priceLine{}, err
	}
	return priceLine{pool: pool, ts: at.UnixNano(), price: x}, nil
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

// parsePriceBytes parses a CSV price: a finite number > 0.
func parsePriceBytes(b []byte) (float64, error) {
	x, err := strconv.ParseFloat(string(b), 64) // no copy: the string does not escape
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, fieldErrorf("price", "not a finite number: %q", b)
	}
	if !(x > 0) {
		return 0, fieldErrorf("price", "%v must be > 0", x)
	}
	return x, nil
}

func parsePriceJSON(line []byte) (priceLine, error) {
	raw, err := decodeObject(line)
	if err != nil {
		return priceLine{}, err
	}
	pool, err := raw.required("pool")
	if err != nil {
		return priceLine{}, err
	}
	at, err := raw.time("ts")
	if err != nil {
		return priceLine{}, err
	}
	price, ok, err := raw.number("price")
	if err != nil {
		return priceLine{}, err
	}
	if !ok {
		return priceLine{}, fieldErrorf("price", "missing")
	}
	if !(price > 0) {
		return priceLine{}, fieldErrorf("price", "%v must be > 0", price)
	}
	return priceLine{pool: []byte(pool), ts: at.UnixNano(), price: price}, nil
}
