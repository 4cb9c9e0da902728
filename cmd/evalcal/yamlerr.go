package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// yamlTypeLine is one line of a yaml.v3 *yaml.TypeError: "line 2: cannot
// unmarshal !!seq into runner.Price" (the value is quoted for scalars:
// "cannot unmarshal !!str `abc` into float64").
var yamlTypeLine = regexp.MustCompile("^line ([0-9]+): cannot unmarshal !!([a-z]+)(?: `([^`]*)`)? into (.+)$")

// yamlKinds names a YAML tag for a user.
var yamlKinds = map[string]string{
	"seq": "a list", "map": "a mapping", "str": "text", "int": "a number", "float": "a number",
	"bool": "true or false", "null": "null", "binary": "binary data", "timestamp": "a date",
}

// goKinds names the Go types a document decodes into, for a user.
var goKinds = map[string]string{
	"runner.Price":  "a price {input: X, output: Y, cached_input: Z}",
	"float64":       "a number",
	"float32":       "a number",
	"int":           "a whole number",
	"int64":         "a whole number",
	"bool":          "true or false",
	"string":        "text",
	"time.Duration": "a duration (30s, 2m)",
}

// yamlError rewrites a yaml.v3 type error in the user's words: "line 2: a
// list where a price {input: X, output: Y, cached_input: Z} belongs", never
// the Go types it was decoded into ("cannot unmarshal !!seq into
// runner.Price"; issue 28). Other errors are returned as they are.
func yamlError(err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	lines := make([]string, len(te.Errors))
	for i, e := range te.Errors {
		lines[i] = yamlTypeProblem(e)
	}
	return fmt.Errorf("%s", strings.Join(lines, "; "))
}

// yamlTypeProblem is one line of a type error in the user's words.
func yamlTypeProblem(e string) string {
	m := yamlTypeLine.FindStringSubmatch(e)
	if m == nil {
		return e
	}
	got := yamlKinds[m[2]]
	if got == "" {
		got = "a value of another kind"
	}
	if m[3] != "" {
		got = fmt.Sprintf("%s %q", got, m[3])
	}
	want, ok := goKinds[strings.TrimPrefix(m[4], "*")]
	switch {
	case ok:
	case strings.HasPrefix(m[4], "map["):
		want = "a mapping"
	case strings.HasPrefix(m[4], "[]"):
		want = "a list"
	default:
		want = "something else"
	}
	return fmt.Sprintf("line %s: %s where %s belongs", m[1], got, want)
}
