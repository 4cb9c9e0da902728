package main

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// newRootCmd builds the command tree. Every command shares one help
// layout (writeHelp) printed on stdout, and every parse error is a usage
// error (exit 2) with a suggestion when the command or flag looks like a
// typo.
func newRootCmd(f *factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "evalcal",
		Short: "can we trust the cheap eval?",
		Long: `Evalcal calls an inspector at a fast light depth and a thorough deep depth on
completed AI-agent runs, compares the verdicts run by run, and computes how often
light agrees with deep, how sure that figure is, which way light is biased, which
runs disagree and why, and what to change in the light eval. The same scoring core
scores agents' probability forecasts, resolves trading calls against prices, and
gates self-learned lessons on held-out evidence.

Every command prints only the requested document on stdout, or writes it atomically
with -o FILE; diagnostics and progress go to stderr, prefixed "evalcal:".`,
		Version:       versionLine(),
		SilenceErrors: true,
		SilenceUsage:  true,
		// The root runs only to say what is wrong: no command, or an
		// unknown one (with cobra's "did you mean").
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommandError(c, args[0])
			}
			return nil
		},
		RunE: func(c *cobra.Command, _ []string) error {
			writeHelp(f.io.ErrOut, c)
			return usageErrorf("no command given")
		},
	}
	root.Annotations = map[string]string{usageAnnotation: "evalcal COMMAND [flags] [args]"}
	root.CompletionOptions.DisableDefaultCmd = true
	root.SuggestionsMinimumDistance = 2
	root.SetIn(f.io.In)
	root.SetOut(f.io.Out)
	root.SetErr(f.io.ErrOut)
	root.SetVersionTemplate("{{.Version}}\n")
	root.Flags().BoolP("version", "v", false, "print evalcal's version (as evalcal version does)")
	root.SetFlagErrorFunc(flagError)
	root.SetHelpFunc(func(c *cobra.Command, _ []string) { writeHelp(c.OutOrStdout(), c) })
	root.SetUsageFunc(func(c *cobra.Command) error { writeHelp(c.ErrOrStderr(), c); return nil })
	root.SetHelpCommand(newCmdHelp(f))
	root.AddCommand(
		newCmdRun(f, nil),
		newCmdMerge(f, nil),
		newCmdScore(f, nil),
		newCmdCalls(f, nil),
		newCmdGate(f, nil),
		newCmdRender(f, nil),
		newCmdPlan(f, nil),
		newCmdPosition(f, nil),
		newCmdRank(f, nil),
		newCmdAnchor(f, nil), newCmdDrift(f, nil),
		newCmdVersion(f),
		newCmdCompletion(f),
	)
	return root
}

// usageAnnotation holds a command's usage lines, one a line, in full
// ("evalcal run [flags] PATH..."); without it the help shows cobra's
// UseLine.
const usageAnnotation = "evalcal:usage"

// writeHelp writes a command's help in the one layout every command
// shares: a title, the usage lines, the description, the subcommands,
// the examples, the flags and the exit codes.
func writeHelp(w io.Writer, c *cobra.Command) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n\nUsage:\n", c.CommandPath(), c.Short)
	usage := c.Annotations[usageAnnotation]
	if usage == "" {
		usage = c.UseLine()
	}
	for _, l := range strings.Split(usage, "\n") {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	if c.Long != "" {
		fmt.Fprintf(&b, "\n%s\n", strings.TrimSpace(c.Long))
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("\nCommands:\n")
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				fmt.Fprintf(&b, "  %-11s %s\n", sub.Name(), sub.Short)
			}
		}
	}
	if c.Example != "" {
		fmt.Fprintf(&b, "\nExamples:\n%s\n", strings.TrimRight(c.Example, "\n"))
	}
	if c.HasAvailableLocalFlags() {
		fmt.Fprintf(&b, "\nFlags:\n%s", c.LocalFlags().FlagUsagesWrapped(110))
	}
	b.WriteString("\n" + exitCodesHelp + "\n")
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "Run '%s help COMMAND' or '%s COMMAND --help' for a command's flags.\n", c.CommandPath(), c.CommandPath())
	}
	_, _ = io.WriteString(w, b.String())
}

// newCmdHelp is `evalcal help [COMMAND]`: the help of a command on stdout,
// exit 0; an unknown command is a usage error with a suggestion.
func newCmdHelp(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND]",
		Short: "show the help of evalcal or of a command",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageErrorf("help: want at most one COMMAND, got %d", len(args))
			}
			return nil
		},
		ValidArgsFunction: func(c *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []cobra.Completion
			for _, sub := range c.Root().Commands() {
				if sub.IsAvailableCommand() {
					names = append(names, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			root := c.Root()
			if len(args) == 0 {
				writeHelp(f.io.Out, root)
				return nil
			}
			for _, sub := range root.Commands() {
				if sub.Name() == args[0] || sub.HasAlias(args[0]) {
					sub.InitDefaultHelpFlag()
					writeHelp(f.io.Out, sub)
					return nil
				}
			}
			return unknownCommandError(root, args[0])
		},
	}
}

// unknownCommandError names an unknown command with cobra's suggestions
// (Levenshtein distance <= 2, or a prefix).
func unknownCommandError(root *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q", name)
	if s := root.SuggestionsFor(name); len(s) > 0 {
		msg += " (did you mean " + orList(s, "") + "?)"
	}
	return usageErrorHint("Run 'evalcal help' for the commands.", "%s", msg)
}

// flagError turns a flag parse error into a usage error naming the
// command, with "did you mean" for an unknown flag.
func flagError(c *cobra.Command, err error) error {
	if !c.HasParent() && c.Flags().NArg() > 0 {
		// "evalcal rank --no-cache": cobra found no command "rank" and
		// parsed the flags as the root's; the command is what is wrong.
		return unknownCommandError(c, c.Flags().Arg(0))
	}
	hint := fmt.Sprintf("Run '%s --help' for usage.", c.CommandPath())
	var ne *pflag.NotExistError
	if errors.As(err, &ne) {
		typed := ne.GetSpecifiedName()
		shown := "--" + typed
		if sh := ne.GetSpecifiedShortnames(); sh != "" {
			// "-fromat" read as the shorthands f, r, o...: the user most
			// likely meant a long flag spelled like the whole group.
			typed, shown = sh, "-"+sh
		}
		msg := fmt.Sprintf("%s: unknown flag %s", c.Name(), shown)
		if s := suggestFlags(c.Flags(), typed); len(s) > 0 {
			msg += " (did you mean " + orList(s, "--") + "?)"
		}
		return &exitError{code: exitUsage, err: errors.New(msg), hint: hint}
	}
	return &exitError{code: exitUsage, err: fmt.Errorf("%s: %w", c.Name(), err), hint: hint}
}

// suggestFlags returns up to three long flag names of fs close to typed:
// at Levenshtein distance <= 2 (<= 1 when typed has at most 4
// characters, where 2 edits reach unrelated names), or starting with
// typed when typed has at least 3 characters; nearest first, then by
// name. Hidden flags and help are never suggested.
func suggestFlags(fs *pflag.FlagSet, typed string) []string {
	type candidate struct {
		name string
		dist int
	}
	maxDist := 2
	if len(typed) <= 4 {
		maxDist = 1
	}
	var cs []candidate
	fs.VisitAll(func(fl *pflag.Flag) {
		if fl.Hidden || fl.Name == "help" {
			return
		}
		d := levenshtein(typed, fl.Name)
		if d <= maxDist || (len(typed) >= 3 && strings.HasPrefix(fl.Name, typed)) {
			cs = append(cs, candidate{fl.Name, d})
		}
	})
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].dist != cs[j].dist {
			return cs[i].dist < cs[j].dist
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

// levenshtein is the edit distance between a and b (insertions,
// deletions and substitutions of bytes, each costing 1), computed with
// one row of the Wagner-Fischer table.
func levenshtein(a, b string) int {
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(a); i++ {
		diag := row[0]
		row[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			next := min(row[j]+1, row[j-1]+1, diag+cost)
			diag, row[j] = row[j], next
		}
	}
	return row[len(b)]
}

// orList joins names as `"a"`, `"a" or "b"`, `"a", "b" or "c"`, each
// with prefix, quoted when prefix is empty.
func orList(names []string, prefix string) string {
	q := make([]string, len(names))
	for i, n := range names {
		if prefix == "" {
			q[i] = fmt.Sprintf("%q", n)
		} else {
			q[i] = prefix + n
		}
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// commandWords is the command path of c without the program name:
// ["run"] for evalcal run, [] for the root.
func commandWords(c *cobra.Command) []string {
	var words []string
	for ; c.HasParent(); c = c.Parent() {
		words = append([]string{c.Name()}, words...)
	}
	return words
}

// rewriteLegacyFlags rewrites the single-dash long flags that Go's flag
// package accepted ("-format json", "-inspector=builtin", "--o r.yaml")
// into their GNU form ("--format json", "--inspector=builtin",
// "--output r.yaml"), for the flags of c only, and returns the rewritten
// arguments and the names rewritten (each once, in order). Values of flags
// are never touched (a value may start with a dash), and nothing after
// "--" is.
func rewriteLegacyFlags(c *cobra.Command, args []string) ([]string, []string) {
	c.InitDefaultHelpFlag()
	c.InitDefaultVersionFlag()
	fs := c.Flags()
	var out, legacy []string
	seen := map[string]bool{}
	note := func(name string) {
		if !seen[name] {
			seen[name] = true
			legacy = append(legacy, name)
		}
	}
	// takesValue says whether the flag consumes the next argument.
	takesValue := func(fl *pflag.Flag, inline bool) bool {
		return fl != nil && !inline && fl.NoOptDefVal == ""
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...), legacy
		case strings.HasPrefix(a, "--"):
			name, value, inline := strings.Cut(a[2:], "=")
			fl := fs.Lookup(name)
			if fl == nil && len(name) == 1 {
				// --o was the long name of -o under Go's flag package.
				if fl = fs.ShorthandLookup(name); fl != nil {
					note(name)
					a = "--" + fl.Name
					if inline {
						a += "=" + value
					}
				}
			}
			out = append(out, a)
			if takesValue(fl, inline) && i+1 < len(args) {
				i++
				out = append(out, args[i])
			}
		case len(a) > 2 && a[0] == '-':
			name, _, inline := strings.Cut(a[1:], "=")
			if fl := fs.Lookup(name); fl != nil && len(name) > 1 {
				note(name)
				out = append(out, "-"+a)
				if takesValue(fl, inline) && i+1 < len(args) {
					i++
					out = append(out, args[i])
				}
				continue
			}
			// A shorthand with its value attached (-oreport.yaml) or a
			// group of shorthands: pflag reads it whole.
			out = append(out, a)
		case len(a) == 2 && a[0] == '-':
			out = append(out, a)
			if fl := fs.ShorthandLookup(a[1:]); takesValue(fl, false) && i+1 < len(args) {
				i++
				out = append(out, args[i])
			}
		default:
			out = append(out, a)
		}
	}
	return out, legacy
}

// legacyNote is the deprecation note's advice: "--format instead of
// -format, --output instead of --o".
func legacyNote(names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		if len(n) == 1 {
			parts[i] = fmt.Sprintf("-%s instead of --%s", n, n)
		} else {
			parts[i] = fmt.Sprintf("--%s instead of -%s", n, n)
		}
	}
	return strings.Join(parts, ", ")
}
