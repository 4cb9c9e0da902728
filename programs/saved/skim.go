package saved

import "bytes"

// skim reads a line's run_id, depth and system without decoding it: a
// shard uses it to set aside the lines of other shards' runs (LoadShard).
// It succeeds only on the plain form: an object ("{...}") in which
// "run_id":"…" and "depth":"…" (light or deep) each occur exactly once,
// "system":"…" or "program":"…" at most once and not both, the values
// hold no backslash, and neither inclusion_probability nor metadata is
// given (those lines are decoded, since the deep-subset design and the
// run's metadata are read for every run).
// Inside a JSON string a quote is escaped, so `"run_id":"` can only be a
// key; a key repeated in a nested object makes skim give up. Any other
// line is decoded in full, as without shards.
//
// Every shard skims every other shard's line, so skim reads the line in
// one pass, from quote to quote (each key begins with one), instead of
// searching it once a key: that was a quarter of a shard's CPU at 64
// shards of 100,000 runs (README "Performance"). A key counts again only
// where it begins after the end of its first occurrence, as a search of
// the rest of the line would find it.
func skim(line []byte) (id, depth, system string, ok bool) {
	if len(line) < 2 || line[0] != '{' || line[len(line)-1] != '}' {
		return "", "", "", false
	}
	var at [len(skimKeys)]int // where each key's value begins, 0: not seen
	for i := 0; ; {
		q := bytes.IndexByte(line[i:], '"')
		if q < 0 {
			break
		}
		i += q
		if k := skimKeyAt(line[i:]); k >= 0 {
			switch {
			case k >= skimRejects:
				return "", "", "", false // a key whose line is always decoded
			case at[k] == 0:
				at[k] = i + len(skimKeys[k])
			case i >= at[k]:
				return "", "", "", false // a key given twice
			}
		}
		i++
	}
	var v [skimRejects]string
	for k := range v {
		if at[k] == 0 {
			continue
		}
		rest := line[at[k]:]
		end := bytes.IndexByte(rest, '"')
		if end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
			return "", "", "", false
		}
		switch val := rest[:end]; {
		case k == 1 && string(val) == "light": // the depth, without a copy
			v[k] = "light"
		case k == 1 && string(val) == "deep":
			v[k] = "deep"
		default:
			v[k] = string(val)
		}
	}
	id, depth, sys, prog := v[0], v[1], v[2], v[3]
	if id == "" || depth != "light" && depth != "deep" || sys != "" && prog != "" {
		return "", "", "", false
	}
	return id, depth, sys + prog, true
}

// skimKeys are the keys skim looks for: the four it reads (run_id,
// depth, system, program; each ends with its value's opening quote), then
// from skimRejects those that send the line to the decoder.
var skimKeys = [...]string{`"run_id":"`, `"depth":"`, `"system":"`, `"program":"`, `"inclusion_probability"`, `"metadata"`}

const skimRejects = 4

// skimKeyAt returns the index in skimKeys of the key s begins with, or -1.
func skimKeyAt(s []byte) int {
	if len(s) < 2 {
		return -1
	}
	var k int
	switch s[1] {
	case 'r':
		k = 0
	case 'd':
		k = 1
	case 's':
		k = 2
	case 'p':
		k = 3
	case 'i':
		k = 4
	case 'm':
		k = 5
	default:
		return -1
	}
	if !bytes.HasPrefix(s, []byte(skimKeys[k])) {
		return -1
	}
	return k
}
