package report

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/internal/inputfile"
)

// maxRunsLine bounds one line of a runs file (one run's comparison with
// its flags): longer is an error, not an allocation by a number read from
// a file.
const maxRunsLine = 64 << 20

// LoadRunsFile puts back the per-run listings of a report written with a
// runs file (r.RunsFile set; nothing to do otherwise), reading the file
// at r.RunsFile.Path (a relative path is relative to dir, the report's
// directory) and clearing r.RunsFile: r is then the report as it would
// have been written without a runs file. It refuses, naming the file and
// line, a file whose SHA-256, length or line counts differ from what the
// report recorded (edited, or of another run), a line that is not a runs
// file's, and a listing the report has no place for.
func LoadRunsFile(ctx context.Context, r *Report, dir string) error {
	rf := r.RunsFile
	if rf == nil {
		return nil
	}
	path := rf.Path
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	f, stop, err := inputfile.Open(ctx, path)
	if err != nil {
		return fmt.Errorf("report: runs file %s: %w", path, err)
	}
	defer f.Close()
	defer stop()
	lists, addrs, err := readRunsLines(ctx, f, path, rf)
	if err != nil {
		return err
	}
	for _, s := range runsSections {
		items, ok := lists[s.name]
		if !ok {
			continue
		}
		v := s.list(r)
		if !v.IsValid() {
			parent, _, _ := strings.Cut(s.name, ".")
			return fmt.Errorf("report: runs file %s: lists %s, but the report has no %s section", path, s.name, parent)
		}
		v.Set(items)
	}
	if _, ok := lists["comparisons"]; ok {
		r.Disagreements = comparator.Disagreements(r.Comparisons)
	}
	for _, k := range slices.Sorted(maps.Keys(addrs)) {
		if k >= len(r.Recommendations) {
			return fmt.Errorf("report: runs file %s: addresses of recommendation %d, but the report has %d", path, k, len(r.Recommendations))
		}
		r.Recommendations[k].Addresses = addrs[k]
	}
	r.RunsFile = nil
	r.Derive() // a report written before a derived field gains it from the listings put back
	return nil
}

// readRunsLines reads the runs file's lines from f (path names it in
// errors), checks them against rf, and returns each section's items as a
// slice of its element type, and the recommendations' addresses by index.
func readRunsLines(ctx context.Context, f io.Reader, path string, rf *RunsFile) (map[string]reflect.Value, map[int][]string, error) {
	types := map[string]reflect.Type{}
	for _, s := range runsSections {
		types[s.name] = s.list(&Report{Escalation: &Escalation{}, Trend: &Trend{}}).Type()
	}
	h := sha256.New()
	br := bufio.NewReaderSize(io.TeeReader(f, h), 256<<10)
	lists := map[string]reflect.Value{}
	addrs := map[int][]string{}
	counts := map[string]int{}
	intern := map[string]string{}
	var size int64
	var long []byte
	for n := 1; ; n++ {
		if n%readCancelEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, fmt.Errorf("report: runs file %s: %w", path, err)
			}
		}
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) && len(long) <= maxRunsLine {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			if len(long) > maxRunsLine {
				return nil, nil, fmt.Errorf("report: runs file %s:%d: a line longer than %d bytes", path, n, maxRunsLine)
			}
			line = long
		}
		size += int64(len(line))
		if len(line) == 0 && errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, nil, fmt.Errorf("report: runs file %s: %w", path, err)
		}
		if !bytes.HasSuffix(line, []byte("\n")) {
			return nil, nil, fmt.Errorf("report: runs file %s:%d: the last line has no newline (cut short?)", path, n)
		}
		name, index, item, ok := splitRunsLine(line)
		if !ok {
			return nil, nil, fmt.Errorf("report: runs file %s:%d: not a runs file line ({\"section\":...,\"item\":...})", path, n)
		}
		counts[name]++
		if name == addressesSection && index >= 0 {
			var id string
			if err := json.Unmarshal(item, &id); err != nil {
				return nil, nil, fmt.Errorf("report: runs file %s:%d: %s: %w", path, n, name, err)
			}
			addrs[index] = append(addrs[index], id)
			continue
		}
		t, known := types[name]
		if !known || index >= 0 {
			return nil, nil, fmt.Errorf("report: runs file %s:%d: unknown section %q", path, n, name)
		}
		e := reflect.New(t.Elem())
		if !decodeFast(name, item, e.Interface(), intern) {
			if err := json.Unmarshal(item, e.Interface()); err != nil {
				return nil, nil, fmt.Errorf("report: runs file %s:%d: %s: %w", path, n, name, err)
			}
		}
		l, ok := lists[name]
		if !ok {
			l = reflect.MakeSlice(t, 0, rf.Sections[name])
		}
		lists[name] = reflect.Append(l, e.Elem())
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != rf.SHA256 || size != rf.Bytes {
		return nil, nil, fmt.Errorf("report: runs file %s: its SHA-256 %s (%d bytes) is not the report's %s (%d bytes): the file was changed or is another run's",
			path, sum, size, rf.SHA256, rf.Bytes)
	}
	if !maps.Equal(counts, rf.Sections) {
		return nil, nil, fmt.Errorf("report: runs file %s: its sections %v are not the report's runs_file.sections %v", path, counts, rf.Sections)
	}
	return lists, addrs, nil
}

// decodeFast decodes the item of a comparisons or sample.runs line into
// v (a new element) by fastComparison or fastSampleRun; false, with v
// zeroed, when it is another section or they gave up.
func decodeFast(section string, item []byte, v any, intern map[string]string) bool {
	switch p := v.(type) {
	case *comparator.Comparison:
		if section == "comparisons" && fastComparison(item, p, intern) {
			return true
		}
		*p = comparator.Comparison{}
	case *SampleRun:
		if section == "sample.runs" && fastSampleRun(item, p, intern) {
			return true
		}
		*p = SampleRun{}
	}
	return false
}

// splitRunsLine reads a line as the writer writes it:
// {"section":NAME[,"index":I],"item":ITEM}\n. index is -1 when absent.
func splitRunsLine(line []byte) (name string, index int, item []byte, ok bool) {
	const head, idx, it = `{"section":"`, `,"index":`, `,"item":`
	rest, found := bytes.CutPrefix(line, []byte(head))
	if !found {
		return "", 0, nil, false
	}
	q := bytes.IndexByte(rest, '"')
	if q < 0 {
		return "", 0, nil, false
	}
	name, rest, index = string(rest[:q]), rest[q+1:], -1
	if after, found := bytes.CutPrefix(rest, []byte(idx)); found {
		end := bytes.IndexByte(after, ',')
		if end < 0 {
			return "", 0, nil, false
		}
		k, err := strconv.Atoi(string(after[:end]))
		if err != nil || k < 0 {
			return "", 0, nil, false
		}
		index, rest = k, after[end:]
	}
	item, found = bytes.CutPrefix(rest, []byte(it))
	if !found {
		return "", 0, nil, false
	}
	item, found = bytes.CutSuffix(item, []byte("}\n"))
	return name, index, item, found
}

// readCancelEvery is how many runs-file lines the reader reads between
// looks at its context.
const readCancelEvery = 256
