package report

import (
	"reflect"
	"slices"
)

// RunsFileThreshold is the number of sampled runs above which run and
// merge write a report's per-run listings to a runs file next to it by
// default (README, "The report": the runs file), so that the report stays
// O(1) in the runs.
const RunsFileThreshold = 10000

// RunsFileKeptDisagreements is how many disagreements a report with a
// runs file still lists itself (the first ones, in run id order: as many
// as its Markdown page shows, render.MarkdownDisagreementRows). The runs
// file does not repeat them: they are the comparisons with a disagreement
// type, in their order (aggregate.Compute), and a reader takes them from
// the comparisons.
const RunsFileKeptDisagreements = 50

// RunsFile says where a report's per-run listings are: a JSON Lines file
// written with the report (run or merge --runs-out). Each line is
// {"section":NAME,"item":ITEM} or, for a recommendation's addresses,
// {"section":"recommendations.addresses","index":I,"item":RUN_ID}: ITEM is
// one element of the listing NAME exactly as the report's JSON would hold
// it (the same figures, the same precision), and the lines follow the
// sections' order (RunsFileSections) and each listing's own order. The
// report's own copy of a moved listing is empty (disagreements keep their
// first RunsFileKeptDisagreements); a reader (LoadRunsFile)
// puts the listings back, so that it sees the report as it would be
// without a runs file.
type RunsFile struct {
	// Path is the runs file: relative to the report's directory when it
	// is in that directory or below it, else as it was given.
	Path string `yaml:"path" json:"path"`
	// SHA256 is the hex SHA-256 of the whole file; a reader refuses a
	// file that does not match.
	SHA256 string `yaml:"sha256" json:"sha256"`
	Bytes  int64  `yaml:"bytes" json:"bytes"`
	Lines  int    `yaml:"lines" json:"lines"`
	// Sections counts the file's lines of each listing, by its name.
	Sections map[string]int `yaml:"sections" json:"sections"`
}

// runsSection is one per-run listing a runs file can hold: its name (the
// listing's key path in the report, dot-joined) and the listing itself in
// a report, as an addressable slice (invalid when the section holding it
// is absent, as trend without --baseline).
type runsSection struct {
	name string
	list func(r *Report) reflect.Value
}

// RunsFileAddresses is the name of the recommendations' addresses, the
// one listing per recommendation (its lines carry the recommendation's
// index).
const RunsFileAddresses = "recommendations.addresses"

// addressesSection is RunsFileAddresses.
const addressesSection = RunsFileAddresses

// runsSections are the per-run listings, in the runs file's order.
var runsSections = []runsSection{
	{"confusion.light_pass_deep_fail", func(r *Report) reflect.Value { return field(&r.Confusion.LightPassDeepFail) }},
	{"confusion.light_fail_deep_pass", func(r *Report) reflect.Value { return field(&r.Confusion.LightFailDeepPass) }},
	{"comparisons", func(r *Report) reflect.Value { return field(&r.Comparisons) }},
	{"light_only", func(r *Report) reflect.Value { return field(&r.LightOnly) }},
	{"inclusion", func(r *Report) reflect.Value { return field(&r.Inclusion) }},
	{"repeats", func(r *Report) reflect.Value { return field(&r.Repeats) }},
	{"failures", func(r *Report) reflect.Value { return field(&r.Failures) }},
	{"sample.runs", func(r *Report) reflect.Value { return field(&r.Sample.Runs) }},
	{"sample.invalid", func(r *Report) reflect.Value { return field(&r.Sample.Invalid) }},
	{"sample.rejected", func(r *Report) reflect.Value { return field(&r.Sample.Rejected) }},
	{"escalation.runs", func(r *Report) reflect.Value {
		if r.Escalation == nil {
			return reflect.Value{}
		}
		return field(&r.Escalation.Runs)
	}},
	{"trend.runs_only_now", func(r *Report) reflect.Value {
		if r.Trend == nil {
			return reflect.Value{}
		}
		return field(&r.Trend.RunsOnlyNow)
	}},
	{"trend.runs_only_before", func(r *Report) reflect.Value {
		if r.Trend == nil {
			return reflect.Value{}
		}
		return field(&r.Trend.RunsOnlyBefore)
	}},
}

// RunsFileSections names the listings a runs file can hold, in its order;
// recommendations.addresses (one listing per recommendation) comes last.
func RunsFileSections() []string {
	names := make([]string, 0, len(runsSections)+1)
	for _, s := range runsSections {
		names = append(names, s.name)
	}
	return append(names, addressesSection)
}

// RunsFileListing is the listing name (one of RunsFileSections but
// RunsFileAddresses) of r, as an addressable slice: invalid when the
// section holding it is absent (trend without --baseline) or the name is
// not a listing.
func RunsFileListing(r *Report, name string) reflect.Value {
	for _, s := range runsSections {
		if s.name == name {
			return s.list(r)
		}
	}
	return reflect.Value{}
}

func field[T any](p *[]T) reflect.Value { return reflect.ValueOf(p).Elem() }

// WithoutRuns returns a copy of r whose per-run listings are emptied (the
// first RunsFileKeptDisagreements disagreements stay when the comparisons
// go), sharing nothing
// that it changes with r: r itself is not modified.
func WithoutRuns(r *Report) *Report {
	c := *r
	if r.Escalation != nil {
		e := *r.Escalation
		c.Escalation = &e
	}
	if r.Trend != nil {
		t := *r.Trend
		c.Trend = &t
	}
	c.Recommendations = slices.Clone(r.Recommendations)
	for _, s := range runsSections {
		v := s.list(&c)
		if !v.IsValid() || v.Len() == 0 {
			continue
		}
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	}
	if len(r.Comparisons) > 0 {
		c.Disagreements = r.Disagreements[:min(len(r.Disagreements), RunsFileKeptDisagreements)]
	}
	for i := range c.Recommendations {
		if len(c.Recommendations[i].Addresses) > 0 {
			c.Recommendations[i].Addresses = []string{}
		}
	}
	return &c
}
