package saved

import (
	"bytes"
	"testing"
)

// skimByKey is skim as it was before it read the line in one pass: one
// search of the whole line per key. It is the reference skim must equal.
func skimByKey(line []byte) (id, depth, system string, ok bool) {
	if len(line) < 2 || line[0] != '{' || line[len(line)-1] != '}' ||
		bytes.Contains(line, []byte(`"inclusion_probability"`)) || bytes.Contains(line, []byte(`"metadata"`)) {
		return "", "", "", false
	}
	id, ok = skimStringByKey(line, `"run_id":"`, true)
	if !ok || id == "" {
		return "", "", "", false
	}
	depth, ok = skimStringByKey(line, `"depth":"`, true)
	if !ok || depth != "light" && depth != "deep" {
		return "", "", "", false
	}
	sys, okS := skimStringByKey(line, `"system":"`, false)
	prog, okP := skimStringByKey(line, `"program":"`, false)
	if !okS || !okP || sys != "" && prog != "" {
		return "", "", "", false
	}
	return id, depth, sys + prog, true
}

func skimStringByKey(line []byte, key string, required bool) (string, bool) {
	k := []byte(key)
	i := bytes.Index(line, k)
	if i < 0 {
		return "", !required
	}
	rest := line[i+len(k):]
	if bytes.Contains(rest, k) {
		return "", false
	}
	end := bytes.IndexByte(rest, '"')
	if end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return "", false
	}
	return string(rest[:end]), true
}

var skimSeeds = []string{
	`{"run_id":"a","system":"s1","depth":"light","verdict":"pass"}`,
	`{"run_id":"b","program":"s2","depth":"deep","verdict":"maybe"}`,
	`{"run_id":"b","program":"s2","system":"s2","depth":"deep"}`,
	`{"run_id":"c","depth":"deep"}`,
	`{"run_id":"","depth":"deep"}`,
	`{"run_id":"c","depth":"medium"}`,
	`{"run_id":"c","depth":"light","run_id":"d"}`,
	`{"run_id":"run_id":"x","depth":"light"}`,
	`{"run_id":"c","depth":"light","x":{"depth":"deep"}}`,
	`{"run_id":"c\"","depth":"light"}`,
	`{"run_id":"c","depth":"light","system":"s\"q"}`,
	`{"run_id":"c","depth":"light","inclusion_probability":0.5}`,
	`{"run_id":"c","depth":"light","metadata":{"a":1}}`,
	`{"run_id":"c","depth":"light","note":"\"metadata\""}`,
	`{"run_id": "e", "system": "s2", "depth": "light"}`,
	`{"run_id":"c","depth":"light","system":"}`,
	`{"run_id":"c","depth":"light`,
	`{"depth":"light"}`,
	`{"`,
	`{}`,
	`{"system":"","program":"p","run_id":"z","depth":"deep"}`,
	`{"run_id":"z","depth":"deep","program":"p","program":"p"}`,
}

// skim gives what the search of the line once a key gives, on the forms
// skim reads and on those it must refuse.
func TestSkimEqualsSearchByKey(t *testing.T) {
	for _, s := range skimSeeds {
		checkSkim(t, []byte(s))
	}
}

func FuzzSkim(f *testing.F) {
	for _, s := range skimSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkSkim)
}

func checkSkim(t *testing.T, line []byte) {
	id, depth, system, ok := skim(line)
	wid, wdepth, wsystem, wok := skimByKey(line)
	if id != wid || depth != wdepth || system != wsystem || ok != wok {
		t.Errorf("skim(%q) = %q, %q, %q, %v; the search by key gives %q, %q, %q, %v",
			line, id, depth, system, ok, wid, wdepth, wsystem, wok)
	}
}
