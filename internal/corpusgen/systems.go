package corpusgen

// system is one OpenProse program (a "system" in the newer eras): its
// caller inputs, its services (nodes) and the stages they run in. A stage
// of more than one node is a parallel block.
type system struct {
	name    string
	purpose string
	callers []callerInput
	nodes   []node
	stages  [][]string
	// errNode fails in failed runs with errName.
	errNode, errName, errMsg string
	vocab                    vocab
}

type callerInput struct{ name, desc, value string }

type node struct {
	id      string
	desc    string
	deps    []string // upstream nodes
	inputs  []string // caller inputs it reads
	outputs []output
	// optional nodes are skipped by design in runs with featSkippedOptional.
	optional bool
}

// output is one published output of a node. bulk outputs carry the bulk
// of a large run.
type output struct {
	name, ext, title string
	fields           []field // JSON outputs only
	bulk             bool
}

func (s system) node(id string) node {
	for _, n := range s.nodes {
		if n.id == id {
			return n
		}
	}
	return node{id: id}
}

// lastNode is the node of the final stage: the run's deliverable.
func (s system) lastNode() string {
	last := s.stages[len(s.stages)-1]
	return last[len(last)-1]
}

// systemNamed returns a fresh copy of the named system definition and
// whether it exists; definitions are built per call so no package state
// is shared.
func systemNamed(name string) (system, bool) {
	for _, s := range allSystems() {
		if s.name == name {
			return s, true
		}
	}
	return system{}, false
}

func md(name, title string) output { return output{name: name, ext: "md", title: title} }

func js(name string, bulk bool, fields ...field) output {
	return output{name: name, ext: "json", fields: fields, bulk: bulk}
}

// allSystems is the corpus's systems, each with its purpose, callers and
// outputs. (long: one literal, a table read top to bottom; splitting it
// would only scatter the systems.)
func allSystems() []system {
	return []system{
		{
			name:    "bug-triage",
			purpose: "Turn a raw bug report into a reproduced, classified and assigned ticket.",
			callers: []callerInput{
				{"report", "the bug report or symptom description", "Checkout page spins forever after applying a coupon on mobile Safari."},
				{"repo", "repository to triage against", "git@example.com:shop/storefront.git"},
			},
			nodes: []node{
				{id: "intake", desc: "Read the bug report and open a ticket", inputs: []string{"report"}, outputs: []output{md("ticket", "Ticket")}},
				{id: "reproduce", desc: "Reproduce the bug in a clean checkout", deps: []string{"intake"}, inputs: []string{"repo"}, outputs: []output{md("repro", "Reproduction")}},
				{id: "classify", desc: "Label the bug by area and severity", deps: []string{"reproduce"}, outputs: []output{js("labels", false, field{"label", "word"}, field{"confidence", "float"}, field{"rationale", "sentence"})}},
				{id: "blame", desc: "Find the commits most likely to have introduced it", deps: []string{"reproduce"}, outputs: []output{md("suspects", "Suspect commits")}},
				{id: "assign", desc: "Pick an owner from the suspects and labels", deps: []string{"classify", "blame"}, outputs: []output{md("assignee", "Assignment")}},
				{id: "triage-report", desc: "Write the triage report for the ticket", deps: []string{"assign"}, outputs: []output{md("report", "Triage report")}},
			},
			stages:  [][]string{{"intake"}, {"reproduce"}, {"classify", "blame"}, {"assign"}, {"triage-report"}},
			errNode: "reproduce", errName: "CannotReproduce", errMsg: "the symptom did not occur in 5 attempts on a clean checkout",
			vocab: vocab{
				subjects: []string{"the checkout API", "the session cache", "the sync worker", "the coupon service", "the web client", "the retry loop", "the payment form"},
				verbs:    []string{"times out on", "drops", "double-submits", "leaks", "misreads", "retries", "serialises"},
				objects:  []string{"the coupon token", "the cart total", "stale session ids", "the idempotency key", "the price cache", "the null discount", "the redirect URL"},
				contexts: []string{"after a coupon is applied", "under mobile Safari", "when the cache is cold", "since release 4.12", "in about one request in forty", "only for guest users"},
				headings: []string{"Symptom", "Environment", "Steps", "Observed", "Expected", "Root cause", "Impact", "Owner"},
				names:    []string{"amara", "jonas", "priya", "tomasz", "lin", "oskar", "fatima"},
				domains:  []string{"tracker.example.com", "ci.example.com"},
			},
		},
		{
			name:    "release-notes",
			purpose: "Draft release notes from the commits between two tags.",
			callers: []callerInput{
				{"from_tag", "the previous release tag", "v4.11.0"},
				{"to_tag", "the release being described", "v4.12.0"},
				{"audience", "who reads the notes", "operators and plugin authors"},
			},
			nodes: []node{
				{id: "git-log", desc: "List the commits between the two tags", inputs: []string{"from_tag", "to_tag"}, outputs: []output{js("commits", true, field{"sha", "sha"}, field{"author", "name"}, field{"subject", "sentence"}, field{"files", "int"})}},
				{id: "categorize", desc: "Sort the commits into release-note sections", deps: []string{"git-log"}, outputs: []output{js("sections", false, field{"section", "word"}, field{"commits", "int"}, field{"summary", "sentence"})}},
				{id: "highlights", desc: "Pick and describe the highlights", deps: []string{"categorize"}, inputs: []string{"audience"}, outputs: []output{md("highlights", "Highlights")}},
				{id: "breaking-changes", desc: "Describe breaking changes and migrations", deps: []string{"categorize"}, outputs: []output{md("breaking", "Breaking changes")}},
				{id: "contributors", desc: "Thank the contributors", deps: []string{"git-log"}, outputs: []output{md("contributors", "Contributors")}},
				{id: "draft", desc: "Write the release notes", deps: []string{"highlights", "breaking-changes", "contributors"}, outputs: []output{md("notes", "Release notes")}},
			},
			stages:  [][]string{{"git-log"}, {"categorize"}, {"highlights", "breaking-changes", "contributors"}, {"draft"}},
			errNode: "draft", errName: "ContextWindowExceeded", errMsg: "the categorised commits did not fit the drafting context",
			vocab: vocab{
				subjects: []string{"the plugin loader", "the config parser", "the metrics exporter", "the CLI", "the storage engine", "the scheduler", "the HTTP router"},
				verbs:    []string{"now supports", "no longer accepts", "deprecates", "speeds up", "fixes", "renames", "adds"},
				objects:  []string{"YAML anchors", "the legacy flag set", "per-tenant quotas", "streaming exports", "TLS 1.3 only mode", "zstd compression", "the v1 plugin API"},
				contexts: []string{"for large clusters", "behind a feature flag", "with a migration guide", "as announced in 4.10", "on ARM builds", "by default"},
				headings: []string{"Highlights", "Features", "Fixes", "Deprecations", "Migration", "Performance", "Thanks"},
				names:    []string{"r.okafor", "m.silva", "k.tanaka", "a.novak", "d.haddad", "s.berg", "e.moreau"},
				domains:  []string{"git.example.com", "docs.example.com"},
			},
		},
		{
			name:    "layoffs-discover",
			purpose: "Find recent layoff announcements that the frame does not cover yet.",
			callers: []callerInput{
				{"frame", "path to the frame directory", "."},
				{"budget_usd", "ceiling for paid search spend this run", "0.20"},
				{"min_candidates", "target deduplicated candidate count", "15"},
				{"freshness_days", "surface announcements within the last N days", "14"},
			},
			nodes: []node{
				{id: "tool-picker", desc: "Choose the search tools for this run", inputs: []string{"frame"}, outputs: []output{js("chosen_tools", false, field{"tool", "word"}, field{"rank", "rank"}, field{"reason", "sentence"})}},
				{id: "query-planner", desc: "Plan distinct search queries inside the budget", deps: []string{"tool-picker"}, inputs: []string{"budget_usd", "freshness_days"}, outputs: []output{js("queries", false, field{"id", "id"}, field{"query", "sentence"}, field{"est_usd", "float"})}},
				{id: "searcher", desc: "Run the planned queries", deps: []string{"query-planner"}, inputs: []string{"budget_usd"}, outputs: []output{js("raw_results", true, field{"query_id", "id"}, field{"url", "url"}, field{"title", "sentence"}, field{"paid", "bool"})}},
				{id: "extractor", desc: "Extract candidate announcements from the results", deps: []string{"searcher"}, outputs: []output{js("candidates_unfiltered", false, field{"company", "name"}, field{"headcount", "int"}, field{"announced", "date"}, field{"source", "url"})}},
				{id: "dedup", desc: "Drop candidates already in the frame or duplicated", deps: []string{"extractor"}, inputs: []string{"frame", "min_candidates"}, outputs: []output{js("candidates", false, field{"company", "name"}, field{"headcount", "int"}, field{"announced", "date"}, field{"confidence", "float"})}},
			},
			stages:  [][]string{{"tool-picker"}, {"query-planner"}, {"searcher"}, {"extractor"}, {"dedup"}},
			errNode: "searcher", errName: "AllCallsFailed", errMsg: "every planned paid call returned an opaque 500; nothing settled",
			vocab: vocab{
				subjects: []string{"the regional filing", "a company memo", "the local newspaper", "a state WARN notice", "the earnings call", "an internal leak"},
				verbs:    []string{"reports", "confirms", "hints at", "quantifies", "contradicts", "updates"},
				objects:  []string{"a cut of 8% of staff", "the closure of two offices", "a hiring freeze", "a restructuring charge", "the exit from hardware", "the merger of two units"},
				contexts: []string{"within the freshness window", "outside the frame's coverage", "with a named headcount", "without a date", "in the logistics sector", "in the fintech sector"},
				headings: []string{"Sources", "Candidates", "Dropped", "Budget"},
				names:    []string{"Northwind Freight", "Quillon Labs", "Harbor Analytics", "Vexa Robotics", "Lumen Retail", "Tessel Bank", "Orbita Games"},
				domains:  []string{"news.example.com", "filings.example.org", "social.example.net"},
			},
		},
		{
			name:    "dependency-audit",
			purpose: "Audit a lockfile for vulnerable, unlicensed and outdated dependencies.",
			callers: []callerInput{
				{"lockfile", "path of the lockfile to audit", "go.sum"},
				{"policy", "the licence and severity policy", "deny GPL in linked code; block critical advisories"},
			},
			nodes: []node{
				{id: "inventory", desc: "List every dependency with version and licence", inputs: []string{"lockfile"}, outputs: []output{js("deps", true, field{"name", "word"}, field{"version", "version"}, field{"license", "license"}, field{"direct", "bool"})}},
				{id: "vuln-scan", desc: "Match dependencies against the advisory feed", deps: []string{"inventory"}, outputs: []output{md("advisories", "Advisories")}},
				{id: "license-check", desc: "Check licences against the policy", deps: []string{"inventory"}, inputs: []string{"policy"}, outputs: []output{md("licenses", "Licence check")}},
				{id: "upgrade-plan", desc: "Plan the upgrades that clear the findings", deps: []string{"vuln-scan", "license-check"}, outputs: []output{md("plan", "Upgrade plan")}},
				{id: "audit-report", desc: "Write the audit report", deps: []string{"upgrade-plan"}, outputs: []output{md("report", "Dependency audit")}},
			},
			stages:  [][]string{{"inventory"}, {"vuln-scan", "license-check"}, {"upgrade-plan"}, {"audit-report"}},
			errNode: "vuln-scan", errName: "AdvisoryFeedUnavailable", errMsg: "the advisory feed answered 503 for 10 minutes",
			vocab: vocab{
				subjects: []string{"the YAML decoder", "the TLS shim", "the protobuf runtime", "the image codec", "the SQL driver", "the JWT library", "the HTTP client"},
				verbs:    []string{"pins", "pulls in", "is affected by", "was patched for", "re-exports", "vendors"},
				objects:  []string{"a GPL-3.0 transitive", "advisory GHSA-2026-0147", "an unbounded allocation", "a downgrade to 1.x", "an unmaintained fork", "a path traversal fix"},
				contexts: []string{"through a test-only import", "in the default build", "since the last audit", "with a fix in the next minor", "only on Windows", "behind cgo"},
				headings: []string{"Summary", "Critical", "High", "Licences", "Upgrades", "Exceptions", "Method"},
				names:    []string{"yamlkit", "tlsbridge", "protowire", "imgdecode", "sqlconn", "jwtcore", "httpx"},
				domains:  []string{"advisories.example.org", "pkg.example.dev"},
			},
		},
		{
			name:    "docs-sync",
			purpose: "Bring the user docs back in line with the code and open a pull request.",
			callers: []callerInput{
				{"docs_dir", "the documentation root", "docs/"},
				{"since", "the commit to compare against", "a41c9e2"},
			},
			nodes: []node{
				{id: "diff-docs", desc: "List code changes that touch documented behaviour", inputs: []string{"since"}, outputs: []output{md("changes", "Behaviour changes")}},
				{id: "find-stale", desc: "Find the pages the changes made stale", deps: []string{"diff-docs"}, inputs: []string{"docs_dir"}, outputs: []output{js("stale", false, field{"page", "url"}, field{"last_updated", "date"}, field{"reason", "sentence"})}},
				{id: "rewrite", desc: "Rewrite the stale pages", deps: []string{"find-stale"}, outputs: []output{md("patch", "Docs patch")}},
				{id: "translate", desc: "Update the translated pages", deps: []string{"rewrite"}, outputs: []output{md("translations", "Translations")}, optional: true},
				{id: "review", desc: "Review the rewrite for accuracy and tone", deps: []string{"rewrite"}, outputs: []output{md("review", "Review")}},
				{id: "open-pr", desc: "Open the pull request", deps: []string{"review", "translate"}, outputs: []output{md("pr-url", "Pull request")}},
			},
			stages:  [][]string{{"diff-docs"}, {"find-stale"}, {"rewrite"}, {"review", "translate"}, {"open-pr"}},
			errNode: "open-pr", errName: "PushRejected", errMsg: "the branch protection rule rejected the push",
			vocab: vocab{
				subjects: []string{"the install guide", "the CLI reference", "the config page", "the quickstart", "the API overview", "the FAQ"},
				verbs:    []string{"still documents", "omits", "contradicts", "now explains", "links to", "misnames"},
				objects:  []string{"the removed --legacy flag", "the new retry option", "the default port", "the env var rename", "the v2 endpoint", "the upgrade steps"},
				contexts: []string{"since a41c9e2", "in two places", "in the German translation", "in a code sample", "in the sidebar", "for Windows users"},
				headings: []string{"Changed behaviour", "Pages", "Edits", "Open questions", "Review notes"},
				names:    []string{"docs-bot", "hana", "ravi", "greta", "luis"},
				domains:  []string{"docs.example.com"},
			},
		},
		{
			name:    "flaky-test-hunt",
			purpose: "Find flaky tests in CI history, bisect them and propose a quarantine list.",
			callers: []callerInput{
				{"suite", "the test suite to examine", "integration"},
				{"history_days", "how many days of CI history to read", "30"},
			},
			nodes: []node{
				{id: "collect-runs", desc: "Collect test outcomes from CI history", inputs: []string{"suite", "history_days"}, outputs: []output{js("runs", false, field{"test", "word"}, field{"run", "sha"}, field{"passed", "bool"}, field{"duration_ms", "int"})}},
				{id: "cluster", desc: "Cluster failures by signature", deps: []string{"collect-runs"}, outputs: []output{md("clusters", "Failure clusters")}},
				{id: "bisect", desc: "Bisect the first flaky commit per cluster", deps: []string{"cluster"}, outputs: []output{md("bisect", "Bisection")}},
				{id: "owners", desc: "Find owners for the flaky tests", deps: []string{"cluster"}, outputs: []output{md("owners", "Owners")}},
				{id: "quarantine", desc: "Propose the quarantine list", deps: []string{"bisect", "owners"}, outputs: []output{md("quarantine", "Quarantine list")}},
			},
			stages:  [][]string{{"collect-runs"}, {"cluster"}, {"bisect", "owners"}, {"quarantine"}},
			errNode: "bisect", errName: "BisectTimeout", errMsg: "bisection did not converge within 40 builds",
			vocab: vocab{
				subjects: []string{"TestCheckoutRetry", "TestWebsocketReconnect", "TestExportLarge", "TestClockSkew", "TestMigrationOrder", "TestCacheEviction"},
				verbs:    []string{"fails on", "races with", "times out in", "depends on", "leaks into", "passes only after"},
				objects:  []string{"a shared temp dir", "the wall clock", "port 8080", "test ordering", "a slow DNS lookup", "a global registry"},
				contexts: []string{"in 3% of runs", "on the arm64 runners", "since commit 9f2c1d0", "under -race", "when run in parallel", "after the Go 1.26 upgrade"},
				headings: []string{"Signature", "Frequency", "First bad commit", "Owner", "Proposal"},
				names:    []string{"team-payments", "team-sync", "team-export", "team-core"},
				domains:  []string{"ci.example.com"},
			},
		},
	}
}
