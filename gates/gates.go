// Package gates evaluates CI gates such as 'agreement.lower >= 80' on an
// evalcal document (the calibration report, a score report or a calls
// report). A gate names a field of the document, an operator and a
// number or word. A gate on an interval-valued figure uses the
// conservative bound of the interval for the operator unless it names the
// point or a bound, so a gate passes only when the data make it likely.
//
// Documents are walked as their JSON form, so any exported report type
// works and field names are the report's keys.
package gates

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/evalcal/evalcal/internal/english"
)

// Operators, longest first so that ">=" is not read as ">".
var operators = []string{">=", "<=", "==", "!=", ">", "<"}

// Ordinal is the scale of ordinal words a gate may compare with <, <=, >
// and >=: confidence low < medium < high.
var ordinal = map[string]int{"low": 0, "medium": 1, "high": 2}

// intervalKeys are the keys under which a figure keeps its 95% interval,
// and pointKeys those of its point estimate, in the order they are tried.
var (
	intervalKeys = []string{"wilson95", "ci95", "ci"}
	pointKeys    = []string{"percent", "value", "r", "mean", "difference", "estimate", "bias"}
)

// Gate is one parsed gate expression: FIELD OP VALUE.
type Gate struct {
	// Expr is the expression as given.
	Expr string
	// Field is the dotted field as written, e.g. "agreement.lower".
	Field string
	// Op is one of >=, >, <=, <, ==, !=.
	Op string
	// Want is the right-hand side as written: a number, an ordinal word
	// (low, medium, high), true/false, or a word compared with == or !=.
	Want string

	number  float64
	numeric bool
}

// Result is the outcome of one gate on one value. A gate on a score or
// calls document applies to every group and gives one Result per group.
type Result struct {
	Expr string `yaml:"expr" json:"expr"`
	// Field is the path of the value compared in the document, e.g.
	// "agreement_rate.wilson95.lower" or "groups[alice].calibration".
	Field string `yaml:"field" json:"field"`
	// Bound is "lower" or "upper" when the gate compared a bound of an
	// interval, "point" for its point estimate, "" for a plain value.
	Bound string `yaml:"bound" json:"bound"`
	Op    string `yaml:"op" json:"op"`
	Want  string `yaml:"want" json:"want"`
	// Value is the number compared; Text the word compared (confidence,
	// bias, true/false). Both are empty when the value was missing.
	Value *float64 `yaml:"value" json:"value"`
	Text  string   `yaml:"text,omitempty" json:"text,omitempty"`
	Pass  bool     `yaml:"pass" json:"pass"`
	// Message says what was compared and why the gate passed or failed
	// in one line, fit for stderr.
	Message string `yaml:"message" json:"message"`
}

// GateRecord is how a gate's outcome is kept in a report, in a field
//
//	Gates []gates.GateRecord // yaml:"gates" json:"gates"
type GateRecord = Result

// Parse parses gate expressions of the form FIELD OP VALUE, where FIELD is
// a dotted name of letters, digits and underscores, OP one of >=, >, <=,
// <, ==, != and VALUE a finite number, an ordinal word (low, medium,
// high), true, false, or (with == and != only) another word. Spaces
// around the operator are optional. A malformed expression is an error
// naming it; field names are checked by Validate, against a document.
func Parse(exprs []string) ([]Gate, error) {
	out := make([]Gate, 0, len(exprs))
	for _, e := range exprs {
		g, err := parseOne(e)
		if err != nil {
			return nil, fmt.Errorf("gates: %q: %w", e, err)
		}
		out = append(out, g)
	}
	return out, nil
}

func parseOne(expr string) (Gate, error) {
	g := Gate{Expr: expr}
	at, op := -1, ""
	for i := 0; i < len(expr) && at < 0; i++ {
		for _, o := range operators {
			if strings.HasPrefix(expr[i:], o) {
				at, op = i, o
				break
			}
		}
	}
	if at < 0 {
		return g, errors.New("no operator: want FIELD OP VALUE with OP one of >=, >, <=, <, ==, !=")
	}
	g.Field = strings.TrimSpace(expr[:at])
	g.Op = op
	g.Want = strings.TrimSpace(expr[at+len(op):])
	if err := checkField(g.Field); err != nil {
		return g, err
	}
	switch {
	case g.Want == "":
		return g, errors.New("no value after the operator")
	case strings.ContainsAny(g.Want, "<>=! \t"):
		return g, fmt.Errorf("malformed value %q", g.Want)
	}
	if x, err := strconv.ParseFloat(g.Want, 64); err == nil {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return g, fmt.Errorf("value %q is not a finite number", g.Want)
		}
		g.number, g.numeric = x, true
		return g, nil
	}
	if !isWord(g.Want) {
		return g, fmt.Errorf("value %q is neither a number nor a word", g.Want)
	}
	if _, ok := ordinal[g.Want]; !ok && !isEquality(op) {
		return g, fmt.Errorf("%s needs a number or an ordinal word (low, medium, high), not %q", op, g.Want)
	}
	return g, nil
}

func checkField(f string) error {
	if f == "" {
		return errors.New("no field before the operator")
	}
	for _, seg := range strings.Split(f, ".") {
		if seg == "" || !isWord(seg) && !isIdent(seg) {
			return fmt.Errorf("malformed field %q: want dotted names of letters, digits and underscores", f)
		}
	}
	return nil
}

func isWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '-') {
			return false
		}
	}
	return s != ""
}

func isIdent(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return s != ""
}

func isEquality(op string) bool { return op == "==" || op == "!=" }

// Validate checks, before any work, that every gate names a field of the
// document type of doc (a zero value is enough, e.g. report.Report{} or
// forecast.ScoreReport{}) and compares it with a value of the right kind:
// a number with a numeric field, a word with a text field, true/false
// with a boolean. Fields are matched as Check matches them (aliases,
// interval bounds, per-group fields), on a skeleton of the type in which
// every pointer is set and every list has one element. An unknown field
// is an error naming the gate and the keys available there.
func Validate(gs []Gate, doc any) error {
	sk := skeleton(reflect.TypeOf(doc), 0)
	for _, g := range gs {
		ts, err := resolve(sk, g)
		if err != nil {
			return fmt.Errorf("gates: %q: %w", g.Expr, err)
		}
		for _, t := range ts {
			if err := checkKind(g, t.value); err != nil {
				return fmt.Errorf("gates: %q: field %s: %w", g.Expr, t.path, err)
			}
		}
	}
	return nil
}

func checkKind(g Gate, v any) error {
	switch v.(type) {
	case float64:
		if !g.numeric {
			return fmt.Errorf("is a number, compared with %q", g.Want)
		}
	case string:
		if g.numeric {
			return fmt.Errorf("is text, compared with the number %s", g.Want)
		}
	case bool:
		if g.Want != "true" && g.Want != "false" || !isEquality(g.Op) {
			return errors.New("is true or false: compare it with == true, == false, != true or != false")
		}
	case nil:
		// a null leaf of the skeleton: an interface value; accept.
	default:
		return fmt.Errorf("is not a single value (%T)", v)
	}
	return nil
}

// Check evaluates the gates on doc, any report struct or pointer to one.
// It returns one Result per gate, or per group and gate when the field is
// a group's (a score or calls document: every group must pass). A
// missing or null value fails with the reason the document gives beside
// it. Results come in gate order, then in the document's group order.
func Check(gs []Gate, doc any) []Result {
	tree, err := toTree(doc)
	var out []Result
	for _, g := range gs {
		if err != nil {
			out = append(out, Result{Expr: g.Expr, Field: g.Field, Op: g.Op, Want: g.Want,
				Message: fmt.Sprintf("%s: fail: %v", g.Expr, err)})
			continue
		}
		ts, rerr := resolve(tree, g)
		if rerr != nil {
			out = append(out, Result{Expr: g.Expr, Field: g.Field, Op: g.Op, Want: g.Want,
				Message: fmt.Sprintf("%s: fail: %v", g.Expr, rerr)})
			continue
		}
		for _, t := range ts {
			out = append(out, evaluate(g, t))
		}
	}
	return out
}

// Failed returns the results that did not pass, in order.
func Failed(rs []Result) []Result {
	var out []Result
	for _, r := range rs {
		if !r.Pass {
			out = append(out, r)
		}
	}
	return out
}

func toTree(doc any) (any, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode document: %w", err)
	}
	var tree any
	if err := json.Unmarshal(b, &tree); err != nil {
		return nil, fmt.Errorf("decode document: %w", err)
	}
	return tree, nil
}

// target is one value a gate compares: its path, the value (nil when
// missing or null), the bound used and, when missing, the reason.
type target struct {
	path   string
	value  any
	bound  string
	reason string
}

// resolve finds the value(s) a gate compares in a JSON tree (or a type
// skeleton). Top-level keys come first, then per-group fields of a
// document with "groups", then the aliases of the calibration report. A
// bare name whose top-level key is a section (an object) while its alias
// names a value takes the alias: "bias != optimistic" compares
// bias_direction, as it did before the report gained its bias section,
// and "bias.score_gap..." still reaches the section.
func resolve(root any, g Gate) ([]target, error) {
	segs := strings.Split(g.Field, ".")
	top, ok := root.(map[string]any)
	if !ok {
		return nil, errors.New("document is not an object")
	}
	if v, ok := top[segs[0]]; ok && !bareSectionWithAlias(top, segs, v) {
		t, err := walk(top, segs, "", g.Op)
		if err != nil {
			return nil, err
		}
		return []target{t}, nil
	}
	if groups, ok := top["groups"].([]any); ok && groupField(groups, segs[0]) {
		var out []target
		for i, gr := range groups {
			m, _ := gr.(map[string]any)
			prefix := "groups[" + groupName(m, i) + "]."
			if _, ok := m[segs[0]]; !ok {
				out = append(out, target{path: prefix + g.Field, reason: "the group has no such field"})
				continue
			}
			t, err := walk(m, segs, prefix, g.Op)
			if err != nil {
				return nil, err
			}
			out = append(out, t)
		}
		return out, nil
	}
	if a, ok := aliases[segs[0]]; ok {
		if _, ok := top[a[0]]; ok {
			full := append(append([]string(nil), a...), segs[1:]...)
			t, err := walk(top, full, "", g.Op)
			if err != nil {
				return nil, err
			}
			return []target{t}, nil
		}
	}
	return nil, fmt.Errorf("unknown field %q; the document's fields are: %s", segs[0], keyList(top))
}

// groupField reports whether key is a field of the groups: of the first
// group, which in a type skeleton stands for every group.
func groupField(groups []any, key string) bool {
	if len(groups) == 0 {
		return false
	}
	m, ok := groups[0].(map[string]any)
	if !ok {
		return false
	}
	_, ok = m[key]
	return ok
}

// groupName names a group by its key, or its agent and season, or index.
func groupName(m map[string]any, i int) string {
	if k, ok := m["key"].(string); ok {
		return k
	}
	if a, ok := m["agent"].(string); ok {
		if s, ok := m["season"].(string); ok && s != "" {
			return a + "/" + s
		}
		return a
	}
	return strconv.Itoa(i)
}

// walk follows segs from the object m. A segment "lower" or "upper" that
// is not a key reaches into the object's interval; "point" names its point
// estimate. An interval-valued object at the end yields its conservative
// bound for op. A key that is absent or null yields a target with no value
// and the reason the document gives beside it.
func walk(m map[string]any, segs []string, prefix, op string) (target, error) {
	path := strings.TrimSuffix(prefix, ".")
	var node any = m
	for i, seg := range segs {
		obj, ok := node.(map[string]any)
		if !ok {
			return target{}, fmt.Errorf("%s is a single value; it has no field %q", path, seg)
		}
		join := func(k string) {
			if path == "" {
				path = k
			} else {
				path += "." + k
			}
		}
		if v, ok := obj[seg]; ok {
			join(seg)
			node = v
			if v == nil {
				return target{path: path, reason: reasonNear(obj, seg)}, nil
			}
			continue
		}
		if star, ok := obj["*"]; ok && len(obj) == 1 {
			join(seg) // a map of the type skeleton: any key
			node = star
			continue
		}
		last := i == len(segs)-1
		switch {
		case last && (seg == "lower" || seg == "upper"):
			if k, iv := intervalOf(obj); iv != nil {
				join(k + "." + seg)
				return leaf(iv[seg], path, seg, obj)
			}
		case last && seg == "point":
			if k, v, ok := pointOf(obj); ok {
				join(k)
				return leaf(v, path, "point", obj)
			}
		}
		if hasReason(obj) {
			join(seg)
			return target{path: path, reason: reasonNear(obj, seg)}, nil
		}
		where := path
		if where == "" {
			where = "the document"
		}
		return target{}, fmt.Errorf("unknown field %q in %s; its fields are: %s", seg, where, keyList(obj))
	}
	obj, ok := node.(map[string]any)
	if !ok {
		return target{path: path, value: node}, nil
	}
	// An interval-valued figure: the conservative bound for op.
	if k, iv := intervalOf(obj); iv != nil {
		if _, _, ok := pointOf(obj); ok {
			bound := ""
			switch op {
			case ">=", ">":
				bound = "lower"
			case "<=", "<":
				bound = "upper"
			default:
				pk, v, _ := pointOf(obj)
				return leaf(v, path+"."+pk, "point", obj)
			}
			return leaf(iv[bound], path+"."+k+"."+bound, bound, obj)
		}
	}
	if hasReason(obj) {
		return target{path: path, reason: reasonNear(obj, "")}, nil
	}
	return target{}, fmt.Errorf("%s is an object; name one of its fields: %s", path, keyList(obj))
}

// leaf makes a target of value v; a null v takes the reason near it.
func leaf(v any, path, bound string, owner map[string]any) (target, error) {
	t := target{path: path, value: v, bound: bound}
	if v == nil {
		t.reason = reasonNear(owner, "")
	}
	if _, isObj := v.(map[string]any); isObj {
		return target{}, fmt.Errorf("%s is an object", path)
	}
	return t, nil
}

func intervalOf(obj map[string]any) (string, map[string]any) {
	for _, k := range intervalKeys {
		if iv, ok := obj[k].(map[string]any); ok {
			if _, ok := iv["lower"]; ok {
				return k, iv
			}
		}
	}
	return "", nil
}

func pointOf(obj map[string]any) (string, any, bool) {
	for _, k := range pointKeys {
		if v, ok := obj[k]; ok {
			if _, isObj := v.(map[string]any); !isObj {
				return k, v, true
			}
		}
	}
	return "", nil, false
}

// reasonKeys are the keys under which documents say why a figure is
// missing.
var reasonKeys = []string{"reason", "insufficient", "undefined"}

func hasReason(obj map[string]any) bool { return reasonNear(obj, "") != "" }

// reasonNear returns the reason obj gives for its key (key_reason) or for
// itself (reason, insufficient, undefined).
func reasonNear(obj map[string]any, key string) string {
	if key != "" {
		if s, ok := obj[key+"_reason"].(string); ok && s != "" {
			return s
		}
	}
	for _, k := range reasonKeys {
		if s, ok := obj[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

func keyList(obj map[string]any) string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

// evaluate compares one target with the gate.
func evaluate(g Gate, t target) Result {
	r := Result{Expr: g.Expr, Field: t.path, Bound: t.bound, Op: g.Op, Want: g.Want}
	note := ""
	if t.bound == "lower" || t.bound == "upper" {
		if !strings.HasSuffix(g.Field, "."+t.bound) {
			note = fmt.Sprintf(" (interval: the %s bound, the conservative one for %s)", t.bound, g.Op)
		}
	}
	fail := func(why string) Result {
		r.Message = fmt.Sprintf("%s: fail: %s", g.Expr, why)
		return r
	}
	switch v := t.value.(type) {
	case nil:
		why := t.path + " is not available"
		if t.reason != "" {
			why += ": " + t.reason
		}
		return fail(why)
	case float64:
		r.Value = &v
		if !g.numeric {
			return fail(fmt.Sprintf("%s is a number, compared with %q", t.path, g.Want))
		}
		r.Pass = compare(v, g.number, g.Op)
		r.Message = fmt.Sprintf("%s: %s: %s is %s%s", g.Expr, passWord(r.Pass), t.path, strconv.FormatFloat(v, 'g', 6, 64), note)
		return r
	case string:
		r.Text = v
		if g.numeric {
			return fail(fmt.Sprintf("%s is %q, compared with the number %s", t.path, v, g.Want))
		}
		if isEquality(g.Op) {
			r.Pass = (v == g.Want) == (g.Op == "==")
		} else {
			a, okA := ordinal[v]
			b, okB := ordinal[g.Want]
			if !okA || !okB {
				return fail(fmt.Sprintf("%s is %q, not on the scale low < medium < high", t.path, v))
			}
			r.Pass = compare(float64(a), float64(b), g.Op)
		}
		r.Message = fmt.Sprintf("%s: %s: %s is %s", g.Expr, passWord(r.Pass), t.path, v)
		return r
	case bool:
		r.Text = strconv.FormatBool(v)
		if !isEquality(g.Op) || g.Want != "true" && g.Want != "false" {
			return fail(fmt.Sprintf("%s is %t; compare it with == or != true or false", t.path, v))
		}
		r.Pass = (r.Text == g.Want) == (g.Op == "==")
		r.Message = fmt.Sprintf("%s: %s: %s is %t", g.Expr, passWord(r.Pass), t.path, v)
		return r
	}
	return fail(fmt.Sprintf("%s is not a single value", t.path))
}

func passWord(ok bool) string {
	if ok {
		return "pass"
	}
	return "fail"
}

func compare(a, b float64, op string) bool {
	switch op {
	case ">=":
		return a >= b
	case ">":
		return a > b
	case "<=":
		return a <= b
	case "<":
		return a < b
	case "==":
		return a == b
	case "!=":
		return a != b
	}
	return false
}

var timeType = reflect.TypeOf(time.Time{})

// skeleton builds the JSON shape of type t: objects with every field (by
// its json name, pointers followed, omitempty ignored), one element in
// every list, maps as {"*": value} (any key), numbers 0, text "", booleans
// false. It stops at depth 12 against recursive types.
func skeleton(t reflect.Type, depth int) any {
	if t == nil || depth > 12 {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == timeType {
		return ""
	}
	switch t.Kind() {
	case reflect.Struct:
		m := map[string]any{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				if f.Anonymous {
					if sub, ok := skeleton(f.Type, depth+1).(map[string]any); ok {
						for k, v := range sub {
							m[k] = v
						}
						continue
					}
				}
				name = f.Name
			}
			m[name] = skeleton(f.Type, depth+1)
		}
		return m
	case reflect.Slice, reflect.Array:
		return []any{skeleton(t.Elem(), depth+1)}
	case reflect.Map:
		return map[string]any{"*": skeleton(t.Elem(), depth+1)}
	case reflect.String:
		return ""
	case reflect.Bool:
		return false
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return float64(0)
	}
	return nil
}

// UnmetError lists the gates that did not pass. Its message is one
// summary line; each failed result's Message is the line a command prints
// for it.
type UnmetError struct {
	Failed []Result
}

func (e *UnmetError) Error() string {
	exprs := []string{}
	seen := map[string]bool{}
	for _, r := range e.Failed {
		if !seen[r.Expr] {
			seen[r.Expr] = true
			exprs = append(exprs, r.Expr)
		}
	}
	return fmt.Sprintf("%s not met: %s", english.Count(len(exprs), "gate", "gates"), strings.Join(exprs, "; "))
}

// Unmet returns nil when every result passed, else an *UnmetError with
// the failed results in order.
func Unmet(rs []Result) error {
	if f := Failed(rs); len(f) > 0 {
		return &UnmetError{Failed: f}
	}
	return nil
}
