package builtin

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/sampler"
)

// maxOutputBytes is how much of one output the deep pass reads; a longer
// output is checked for placeholders in its head only.
const maxOutputBytes = 8 << 20

// maxPublishedHash is how much of an output published.json lists is
// hashed to check its sha256 (streamed; a longer output cannot match).
const maxPublishedHash = 1 << 30

var (
	// Placeholder text: lorem ipsum and <placeholder> anywhere; TODO, TBD
	// and FIXME (upper case) only as a line's first word or as a whole
	// JSON string or table cell, so prose that mentions a "TODO list"
	// does not count.
	placeholderAnyRE  = regexp.MustCompile(`(?i)lorem ipsum|<placeholder>|\[placeholder\]`)
	placeholderLineRE = regexp.MustCompile(`(?m)^[ \t>*+#-]*(?:TODO|TBD|FIXME)\b`)
	placeholderCellRE = regexp.MustCompile(`"(?:TODO|TBD|FIXME)"|\|\s*(?:TODO|TBD|FIXME)\s*\|`)
	truncMarkerRE     = regexp.MustCompile(`(?i)\[\.\.\.\s*truncated|\(truncated\)`)
)

// checkOutputsDeep reads every published output and checks its substance
// and integrity.
func (c *check) checkOutputsDeep() error {
	for _, p := range c.run.BindingsPresent {
		if err := c.ctx.Err(); err != nil {
			return err
		}
		b, whole, err := c.readOutput(p)
		if err != nil {
			c.flag(inspection.FlagOutputUnreadable, err.Error(), p)
			continue
		}
		if bytes.IndexByte(b, 0) >= 0 {
			continue // binary: nothing to say about its text
		}
		switch {
		case path.Base(p) == "published.json" && !strings.HasPrefix(p, "bindings/"):
			c.checkPublished(p, b)
		case strings.HasSuffix(p, ".json"):
			c.checkJSON(p, b, whole)
		default:
			c.checkText(p, b, whole)
		}
	}
	return nil
}

// readOutput reads at most maxOutputBytes of the output p, through the
// run's RunDir: never a file outside the run, never a pipe or device.
// whole is false when the output is longer.
func (c *check) readOutput(p string) ([]byte, bool, error) {
	b, whole, err := c.dir.ReadFile(c.ctx, p, maxOutputBytes)
	if err != nil {
		return nil, false, err
	}
	c.bytes += int64(len(b))
	return b, whole, nil
}

// lineOf is the 1-based line of byte offset off in b.
func lineOf(b []byte, off int) int { return bytes.Count(b[:off], []byte("\n")) + 1 }

func (c *check) checkPlaceholder(p string, b []byte, base int) {
	best := -1
	for _, re := range []*regexp.Regexp{placeholderAnyRE, placeholderLineRE, placeholderCellRE} {
		if loc := re.FindIndex(b); loc != nil && (best < 0 || loc[0] < best) {
			best = loc[0]
		}
	}
	if best < 0 {
		return
	}
	line := bytes.TrimSpace(b[best:])
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	if len(line) > 60 {
		line = append(line[:57:57], "..."...)
	}
	c.flag(inspection.FlagPlaceholder, fmt.Sprintf("the output holds placeholder text: %q", line), fmt.Sprintf("%s:%d", p, base+lineOf(b, best)-1))
}

// checkJSON: whitespace-only is empty; JSON that ends early is truncated,
// other invalid JSON is unparseable; then placeholders.
func (c *check) checkJSON(p string, b []byte, whole bool) {
	if len(bytes.TrimSpace(b)) == 0 {
		c.flag(inspection.FlagEmptyOutput, fmt.Sprintf("the output is empty (%d bytes of whitespace)", len(b)), p)
		return
	}
	if whole {
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			var se *json.SyntaxError
			switch {
			case errors.Is(err, io.ErrUnexpectedEOF) || (errors.As(err, &se) && int(se.Offset) >= len(bytes.TrimRight(b, " \t\r\n"))):
				c.flag(inspection.FlagTruncated, "the JSON output ends before its value is complete", fmt.Sprintf("%s:%d", p, lineOf(b, len(b))))
			default:
				c.flag(inspection.FlagBindingUnparsable, "the JSON output does not parse: "+err.Error(), p)
			}
		}
	}
	c.checkPlaceholder(p, b, 1)
}

// envelope splits a Markdown binding into its envelope and body: a first
// `# name` heading, a `kind:` line, then a `---` rule. ok is false when
// the envelope is missing; body is then the whole file.
func envelope(b []byte) (body []byte, bodyLine int, ok bool) {
	lines := bytes.SplitAfter(b, []byte("\n"))
	heading, kind := false, false
	off := 0
	for i, l := range lines {
		t := strings.TrimSpace(string(l))
		switch {
		case !heading && t == "":
		case !heading:
			if !strings.HasPrefix(t, "# ") {
				return b, 1, false
			}
			heading = true
		case strings.HasPrefix(t, "kind:"):
			kind = true
		case t == "---" && kind:
			return b[off+len(l):], i + 2, true
		}
		off += len(l)
	}
	return b, 1, false
}

// checkText checks a Markdown (or other text) output: the envelope of a
// binding, an empty body, placeholders and truncation.
func (c *check) checkText(p string, b []byte, whole bool) {
	body, bodyLine := b, 1
	if strings.HasPrefix(p, "bindings/") && strings.HasSuffix(p, ".md") && len(b) > 0 {
		var ok bool
		body, bodyLine, ok = envelope(b)
		if !ok {
			c.flag(inspection.FlagBindingEnvelope, "the binding lacks its envelope (a `# name` heading, `kind:` and a `---` rule)", p+":1")
		}
	}
	if len(bytes.TrimSpace(body)) == 0 {
		what := "the output is 0 bytes"
		if len(b) > 0 {
			what = "the output has no content after its envelope"
		}
		c.flag(inspection.FlagEmptyOutput, what, p)
		return
	}
	c.checkPlaceholder(p, body, bodyLine)
	if whole {
		c.checkTruncated(p, b, body, bodyLine)
	}
}

// checkTruncated flags a text output that was cut off: a code fence
// opened and never closed, an explicit truncation marker, or a file that
// ends without a newline in the middle of a sentence (its last character
// a letter or a comma).
func (c *check) checkTruncated(p string, file, body []byte, bodyLine int) {
	if loc := truncMarkerRE.FindIndex(body); loc != nil {
		c.flag(inspection.FlagTruncated, "the output says it was truncated", fmt.Sprintf("%s:%d", p, bodyLine+lineOf(body, loc[0])-1))
		return
	}
	fences, open := 0, 0
	for i, l := range bytes.Split(body, []byte("\n")) {
		if bytes.HasPrefix(bytes.TrimSpace(l), []byte("```")) {
			fences++
			if fences%2 == 1 {
				open = bodyLine + i
			}
		}
	}
	if fences%2 == 1 {
		c.flag(inspection.FlagTruncated, "a code fence is opened and never closed", fmt.Sprintf("%s:%d", p, open))
		return
	}
	if bytes.HasSuffix(file, []byte("\n")) {
		return
	}
	last := file[len(file)-1]
	if last == ',' || last == ';' || (last >= 'a' && last <= 'z') || (last >= 'A' && last <= 'Z') {
		c.flag(inspection.FlagTruncated, "the output stops mid-sentence (no closing punctuation, no final newline)",
			fmt.Sprintf("%s:%d", p, lineOf(file, len(file))))
	}
}

// published is the part of a reactor world-model/{node}/published.json
// the deep pass checks.
type published struct {
	Outputs []struct {
		Name   string `json:"name"`
		Path   string `json:"path"`
		SHA256 string `json:"sha256"`
	} `json:"outputs"`
}

// checkPublished verifies that every output published.json lists exists
// and, when it names a sha256, has that digest.
func (c *check) checkPublished(p string, b []byte) {
	var pub published
	if err := json.Unmarshal(b, &pub); err != nil {
		c.flag(inspection.FlagBindingUnparsable, "published.json does not parse: "+err.Error(), p)
		return
	}
	for _, o := range pub.Outputs {
		if o.Path == "" {
			continue
		}
		// As before RunDir: the path is taken relative to the run (a
		// leading / included) and must not climb out of it.
		full := filepath.Join(c.run.Path, filepath.FromSlash(path.Clean(o.Path)))
		rel, err := filepath.Rel(c.run.Path, full)
		if err != nil || !filepath.IsLocal(rel) {
			c.flag(inspection.FlagPublishedMismatch, fmt.Sprintf("output %s points outside the run: %s", o.Name, o.Path), p)
			continue
		}
		f, _, err := c.dir.Open(filepath.ToSlash(rel))
		switch {
		case errors.Is(err, sampler.ErrOutsideRun):
			c.flag(inspection.FlagPublishedMismatch, fmt.Sprintf("output %s points outside the run: %s", o.Name, o.Path), p)
			continue
		case err != nil:
			c.flag(inspection.FlagPublishedMismatch, fmt.Sprintf("output %s is listed but absent: %s", o.Name, o.Path), p)
			continue
		}
		h := sha256.New()
		_, err = io.Copy(h, io.LimitReader(f, maxPublishedHash))
		f.Close()
		if err != nil {
			c.flag(inspection.FlagOutputUnreadable, err.Error(), o.Path)
			continue
		}
		want := strings.TrimPrefix(o.SHA256, "sha256:")
		if want != "" && want != hex.EncodeToString(h.Sum(nil)) {
			c.flag(inspection.FlagPublishedMismatch, fmt.Sprintf("output %s does not match its published sha256", o.Name), p)
		}
	}
}
