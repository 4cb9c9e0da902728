package spec

import (
	"context"
	"strings"
	"testing"
)

func open(context.Context, string, Env) (Opened, error) { return Opened{}, nil }

func TestValidate(t *testing.T) {
	ok := Kind{Name: "a", Usage: "a:X", Open: open}
	for _, c := range []struct {
		name  string
		kinds []Kind
		want  string // "" for valid
	}{
		{"valid", []Kind{ok, {Name: "b", Usage: "b", Open: open}}, ""},
		{"twice", []Kind{ok, ok}, "registered twice"},
		{"colon", []Kind{{Name: "a:b", Usage: "a:b", Open: open}}, "colon"},
		{"empty", []Kind{{Usage: "x", Open: open}}, "empty"},
		{"no open", []Kind{{Name: "a", Usage: "a"}}, "no Open"},
		{"usage", []Kind{{Name: "a", Usage: "b:X", Open: open}}, "does not start"},
	} {
		err := NewRegistry(c.kinds...).Validate()
		if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: Validate() = %v, want %q", c.name, err, c.want)
		}
	}
}

func TestUsageJoins(t *testing.T) {
	a := Kind{Name: "a", Usage: "a", Open: open}
	b := Kind{Name: "b", Usage: "b:X", Open: open}
	c := Kind{Name: "c", Usage: "c:Y", Open: open}
	for _, tc := range []struct {
		kinds []Kind
		want  string
	}{{nil, ""}, {[]Kind{a}, "a"}, {[]Kind{a, b}, "a or b:X"}, {[]Kind{a, b, c}, "a, b:X or c:Y"}} {
		if got := NewRegistry(tc.kinds...).Usage(); got != tc.want {
			t.Errorf("Usage() = %q, want %q", got, tc.want)
		}
	}
}

func TestFlagErrorNamesTheFlag(t *testing.T) {
	err := &FlagError{Flag: "light-key-file", Err: context.Canceled}
	if got := err.Error(); got != "--light-key-file: context canceled" {
		t.Errorf("Error() = %q", got)
	}
}

func TestPrefixes(t *testing.T) {
	r := NewRegistry(Kind{Name: "a", Usage: "a", Open: open}, Kind{Name: "b", Usage: "b:X", Open: open})
	if got := strings.Join(r.Prefixes(), " "); got != "a b:" {
		t.Errorf("Prefixes() = %q, want \"a b:\"", got)
	}
}
