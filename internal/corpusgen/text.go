package corpusgen

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
)

// vocab is the word stock one system's outputs are written from, so that a
// bug-triage report talks about crashes and a dependency audit about
// licences.
type vocab struct {
	subjects []string
	verbs    []string
	objects  []string
	contexts []string
	headings []string
	names    []string
	domains  []string
}

func pick(r *rand.Rand, xs []string) string { return xs[r.IntN(len(xs))] }

// capitalize upper-cases the first byte when it is an ASCII letter.
func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// sentence is one declarative sentence ending in a full stop.
func sentence(r *rand.Rand, v vocab) string {
	s := pick(r, v.subjects) + " " + pick(r, v.verbs) + " " + pick(r, v.objects)
	if r.IntN(3) != 0 {
		s += " " + pick(r, v.contexts)
	}
	return capitalize(s) + "."
}

func paragraph(r *rand.Rand, v vocab, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = sentence(r, v)
	}
	return strings.Join(parts, " ")
}

// markdownDoc is a Markdown document titled title of at least target
// bytes: sections of prose, some with bullet lists; always one section.
func markdownDoc(r *rand.Rand, v vocab, title string, target int) string {
	var b strings.Builder
	b.WriteString("# " + title + "\n\n")
	for first := true; first || b.Len() < target; first = false {
		b.WriteString("## " + pick(r, v.headings) + "\n\n")
		b.WriteString(paragraph(r, v, 1+r.IntN(3)) + "\n\n")
		if b.Len() < target && r.IntN(2) == 0 {
			for i := 2 + r.IntN(3); i > 0; i-- {
				b.WriteString("- " + sentence(r, v) + "\n")
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// field is one key of a generated JSON record and the kind of value it
// holds (see value).
type field struct{ name, kind string }

var licenses = []string{"MIT", "Apache-2.0", "BSD-3-Clause", "ISC", "MPL-2.0", "GPL-3.0-only", "LGPL-2.1"}

// value renders one JSON value of kind; i is the record's index.
func value(r *rand.Rand, v vocab, kind string, i int) string {
	quote := func(s string) string {
		b, _ := json.Marshal(s) // marshalling a string cannot fail
		return string(b)
	}
	switch kind {
	case "sha":
		return quote(fmt.Sprintf("%07x", r.Uint32()&0xfffffff))
	case "id":
		return quote(fmt.Sprintf("q%d", i+1))
	case "name":
		return quote(pick(r, v.names))
	case "sentence":
		return quote(sentence(r, v))
	case "int":
		return fmt.Sprint(1 + r.IntN(999))
	case "rank":
		return fmt.Sprint(i + 1)
	case "float":
		return fmt.Sprintf("%.2f", r.Float64())
	case "bool":
		return fmt.Sprint(r.IntN(4) != 0)
	case "version":
		return quote(fmt.Sprintf("%d.%d.%d", r.IntN(9), r.IntN(30), r.IntN(20)))
	case "url":
		return quote(fmt.Sprintf("https://%s/%s-%d", pick(r, v.domains), strings.ReplaceAll(pick(r, v.objects), " ", "-"), r.IntN(9000)+1000))
	case "license":
		return quote(pick(r, licenses))
	case "date":
		return quote(fmt.Sprintf("2026-%02d-%02d", 1+r.IntN(12), 1+r.IntN(28)))
	default: // "word"
		return quote(pick(r, v.objects))
	}
}

// jsonRecords is a pretty-printed JSON array of records with fields, at
// least one record and at least target bytes.
func jsonRecords(r *rand.Rand, v vocab, fields []field, target int) string {
	var b strings.Builder
	b.WriteString("[\n")
	for i := 0; i == 0 || b.Len() < target; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString("  {")
		for j, f := range fields {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%q: %s", f.name, value(r, v, f.kind, i))
		}
		b.WriteString("}")
	}
	b.WriteString("\n]\n")
	return b.String()
}

// placeholderBody is an output that has the shape of a finished one but
// whose content is a placeholder of the given flavour ("TODO", "TBD",
// "lorem ipsum", "<placeholder>"); json selects a JSON array.
func placeholderBody(flavour, title string, fields []field, json bool) string {
	if json {
		var b strings.Builder
		b.WriteString("[\n  {")
		for j, f := range fields {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%q: %q", f.name, flavour)
		}
		b.WriteString("}\n]\n")
		return b.String()
	}
	switch flavour {
	case "TODO":
		return "# " + title + "\n\n## Summary\n\nTODO: write the summary once the upstream results are in.\n\n## Details\n\nTODO\n"
	case "TBD":
		return "# " + title + "\n\n## Findings\n\n- TBD\n- TBD\n- TBD\n\n## Next steps\n\nTBD.\n"
	case "lorem ipsum":
		return "# " + title + "\n\n## Overview\n\nLorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.\n\n## Details\n\nUt enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat.\n"
	default:
		return "# " + title + "\n\n| item | owner | note |\n|---|---|---|\n| <placeholder> | <placeholder> | <placeholder> |\n| <placeholder> | <placeholder> | <placeholder> |\n"
	}
}

// truncateMidSentence cuts body inside a sentence about two thirds of the
// way through: the result ends in the middle of a line, after a word,
// with no closing punctuation and no newline.
func truncateMidSentence(body string) string {
	cut := len(body) * 2 / 3
	for i := cut; i < len(body)-1; i++ {
		// A space between two letters is inside a sentence.
		if body[i] == ' ' && isLetter(body[i-1]) && isLetter(body[i+1]) {
			return body[:i]
		}
	}
	// No sentence interior after the two-thirds mark: cut any word end.
	for i := cut; i > 1; i-- {
		if body[i] == ' ' && isLetter(body[i-1]) {
			return body[:i]
		}
	}
	return strings.TrimRight(body, ".\n")
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
