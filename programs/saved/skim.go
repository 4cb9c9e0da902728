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
func skim(line []byte) (id, depth, system string, ok bool) {
	if len(line) < 2 || line[0] != '{' || line[len(line)-1] != '}' ||
		bytes.Contains(line, []byte(`"inclusion_probability"`)) || bytes.Contains(line, []byte(`"metadata"`)) {
		return "", "", "", false
	}
	id, ok = skimString(line, `"run_id":"`, true)
	if !ok || id == "" {
		return "", "", "", false
	}
	depth, ok = skimString(line, `"depth":"`, true)
	if !ok || depth != "light" && depth != "deep" {
		return "", "", "", false
	}
	sys, okS := skimString(line, `"system":"`, false)
	prog, okP := skimString(line, `"program":"`, false)
	if !okS || !okP || sys != "" && prog != "" {
		return "", "", "", false
	}
	return id, depth, sys + prog, true
}

// skimString returns the string after the one occurrence of key (which
// ends with the value's opening quote). ok is false when key occurs more
// than once, is required and absent, or its value has a backslash or no
// closing quote.
func skimString(line []byte, key string, required bool) (string, bool) {
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
