package main

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/shlex"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestReadmeExamplesRun runs every `bin/evalcal ...` example line of the
// README (indented code, with backslash continuations) in-process, with
// -o/--output redirected to a temporary directory (and later examples
// reading a file an earlier one wrote reading it there), and expects exit
// 0: the documentation cannot drift from the commands.
func TestReadmeExamplesRun(t *testing.T) {
	root := repoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	var examples []string
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(lines[i], "    bin/evalcal ") {
			continue
		}
		for strings.HasSuffix(l, `\`) && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, `\`) + " " + strings.TrimSpace(lines[i])
		}
		examples = append(examples, l)
	}
	if len(examples) < 15 {
		t.Fatalf("found %d README examples, want at least 15", len(examples))
	}
	tmp := t.TempDir()
	written := map[string]string{} // file name an example wrote -> where it is
	for _, ex := range examples {
		args, err := shlex.Split(ex)
		if err != nil {
			t.Fatalf("%s: %v", ex, err)
		}
		args = args[1:] // bin/evalcal
		for i := range args {
			if (args[i] == "-o" || args[i] == "--output") && i+1 < len(args) {
				args[i+1] = filepath.Join(tmp, filepath.Base(args[i+1]))
				written[filepath.Base(args[i+1])] = args[i+1]
				i++
			} else if p, ok := written[args[i]]; ok {
				args[i] = p
			}
		}
		switch {
		case args[0] == "run":
			args = append([]string{"run", "--cache", filepath.Join(tmp, "cache")}, args[1:]...)
		case len(args) > 1 && args[0] == "anchor" && args[1] == "freeze":
			args = append([]string{"anchor", "freeze", "--cache", filepath.Join(tmp, "cache")}, args[2:]...)
		}
		_, stderr, code := runCLI(t, args...)
		// A gate example may exit 3 by design; every other must succeed.
		if code != 0 && !(code == 3 && strings.Contains(ex, "--require")) {
			t.Errorf("README example exits %d:\n  %s\n%s", code, ex, stderr)
		}
	}
}

// readmeFlagRow is one row of a README flag table.
type readmeFlagRow struct {
	line     int
	flags    []string // long names, and shorthands as "-o"
	defaultV string   // the default cell without backticks
}

// readmeFlagTables parses, for each "### `evalcal NAME`" section of the
// README, the rows of its first table whose header starts with "| flag |".
func readmeFlagTables(t *testing.T, readme string) map[string][]readmeFlagRow {
	t.Helper()
	section := regexp.MustCompile("^### `evalcal ([a-z]+(?: [a-z]+)?)`")
	flagName := regexp.MustCompile("`(--?[a-z][a-z0-9-]*)")
	tables := map[string][]readmeFlagRow{}
	current, inTable, done := "", false, false
	for i, l := range strings.Split(readme, "\n") {
		if m := section.FindStringSubmatch(l); m != nil {
			current, inTable, done = m[1], false, false
			tables[current] = nil
			continue
		}
		if strings.HasPrefix(l, "## ") {
			current = ""
		}
		if current == "" || done {
			continue
		}
		switch {
		case strings.HasPrefix(l, "| flag |"):
			inTable = true
		case inTable && strings.HasPrefix(l, "|---"):
		case inTable && strings.HasPrefix(l, "|"):
			cells := strings.Split(strings.Trim(l, "|"), "|")
			if len(cells) < 3 {
				t.Fatalf("README line %d: a flag row needs three cells: %s", i+1, l)
			}
			row := readmeFlagRow{line: i + 1, defaultV: strings.Trim(strings.TrimSpace(cells[1]), "`")}
			for _, m := range flagName.FindAllStringSubmatch(cells[0], -1) {
				row.flags = append(row.flags, m[1])
			}
			if len(row.flags) == 0 {
				t.Fatalf("README line %d: no flag in the first cell: %s", i+1, l)
			}
			tables[current] = append(tables[current], row)
		case inTable:
			inTable, done = false, true
		}
	}
	return tables
}

// zeroDefault reports whether a flag's default is its type's zero value:
// the README then describes what absence means ("stdout", "off").
func zeroDefault(fl *pflag.Flag) bool {
	switch fl.DefValue {
	case "", "0", "false", "[]":
		return true
	}
	return false
}

// TestReadmeFlagTablesMatchTheHelp compares each command's README flag
// table with the command: every flag its help lists (but --help) has a
// row and every row names a flag the help lists, with the same shorthand;
// a flag whose default is not its type's zero value shows that default
// exactly (what the help prints as "(default ...)"). Every command has a
// README section.
func TestReadmeFlagTablesMatchTheHelp(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	tables := readmeFlagTables(t, string(data))
	root := newRootCmd(&factory{io: ioStreams{}})
	// A command with subcommands (anchor) has its table under each
	// subcommand's section (### `evalcal anchor freeze`).
	var cmds []*cobra.Command
	for _, c := range root.Commands() {
		if c.HasSubCommands() {
			cmds = append(cmds, c.Commands()...)
		} else {
			cmds = append(cmds, c)
		}
	}
	for _, c := range cmds {
		if c.Name() == "help" {
			continue
		}
		name := strings.TrimPrefix(c.CommandPath(), "evalcal ")
		t.Run(name, func(t *testing.T) {
			rows, ok := tables[name]
			if !ok {
				t.Fatalf("README has no section ### `evalcal %s`", name)
			}
			help, stderr, code := runCLI(t, append(strings.Fields(name), "--help")...)
			if code != 0 {
				t.Fatalf("%s --help: exit %d: %s", name, code, stderr)
			}
			inHelp := helpFlags(help)
			inTable := map[string]readmeFlagRow{}
			for _, r := range rows {
				for _, f := range r.flags {
					name := strings.TrimLeft(f, "-")
					if !strings.HasPrefix(f, "--") {
						fl := c.Flags().ShorthandLookup(name)
						if fl == nil || !containsString(r.flags, "--"+fl.Name) {
							t.Errorf("README line %d: %s is not the shorthand of a flag in its row", r.line, f)
						}
						continue
					}
					if !inHelp[name] {
						t.Errorf("README line %d: --%s is not in `evalcal %s --help`", r.line, name, c.CommandPath())
					}
					inTable[name] = r
				}
			}
			var names []string
			for name := range inHelp {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				if name == "help" {
					continue
				}
				r, ok := inTable[name]
				if !ok {
					t.Errorf("README's %s table has no row for --%s", c.CommandPath(), name)
					continue
				}
				fl := c.Flags().Lookup(name)
				if fl.Shorthand != "" && !containsString(r.flags, "-"+fl.Shorthand) {
					t.Errorf("README line %d: --%s has the shorthand -%s, not in its row", r.line, name, fl.Shorthand)
				}
				if longFlags(r.flags) == 1 && !zeroDefault(fl) && r.defaultV != fl.DefValue {
					t.Errorf("README line %d: --%s default %q, the help says %q", r.line, name, r.defaultV, fl.DefValue)
				}
			}
		})
	}
}

// helpFlags returns the long flag names listed in a help text's Flags
// section.
func helpFlags(help string) map[string]bool {
	_, flags, _ := strings.Cut(help, "\nFlags:\n")
	re := regexp.MustCompile(`(?m)^\s+(?:-[a-z], )?--([a-z0-9-]+)`)
	out := map[string]bool{}
	for _, m := range re.FindAllStringSubmatch(flags, -1) {
		out[m[1]] = true
	}
	return out
}

// longFlags counts the --long names among flags.
func longFlags(flags []string) int {
	n := 0
	for _, f := range flags {
		if strings.HasPrefix(f, "--") {
			n++
		}
	}
	return n
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestReadmeQuotesTheDemoAnswer: the summary the README quotes for the
// bundled corpus is the one the golden report (what make demo writes)
// holds, line for line.
func TestReadmeQuotesTheDemoAnswer(t *testing.T) {
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile(filepath.Join(root, "testdata", "run", "corpus.golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"  trust: ", "  sentence: ", "  advice: "} {
		var want string
		for _, l := range strings.Split(string(golden), "\n") {
			if strings.HasPrefix(l, key) {
				want = l
				break
			}
		}
		if want == "" {
			t.Fatalf("the golden report has no %q line", strings.TrimSpace(key))
		}
		if !strings.Contains(string(readme), "\n"+want+"\n") {
			t.Errorf("README does not quote the demo's %s line:\n%s", strings.TrimSpace(key), want)
		}
	}
}
