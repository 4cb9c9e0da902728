package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// versionLine is what --version and `evalcal version` print: "evalcal "
// and the version constant, the one version a report's generated_by
// names too, then the VCS commit when the build recorded it, for example
//
//	evalcal 0.2.0 (commit 4f47090abcde, modified)
//
// The module version Go records (a pseudo-version such as
// v0.0.0-20261201145800-4f47090abcde+dirty for a build from a checkout)
// is not printed: it named a version no report carries (issue 28); the
// commit says which build it is.
func versionLine() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "evalcal " + version
	}
	return versionFromBuildInfo(info)
}

// versionFromBuildInfo is versionLine for given build information.
func versionFromBuildInfo(info *debug.BuildInfo) string {
	var commit string
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	line := "evalcal " + version
	if commit != "" {
		if len(commit) > 12 {
			commit = commit[:12]
		}
		line += " (commit " + commit
		if modified {
			line += ", modified"
		}
		line += ")"
	}
	return line
}

// newCmdVersion is `evalcal version`, the same line as --version.
func newCmdVersion(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print evalcal's version and VCS commit",
		Long: `Print evalcal's version (` + version + `, the version every report's generated_by
names) and the VCS commit the binary was built from, with ", modified" when the
working tree had changes. --version prints the same line.`,
		Example: "  evalcal version\n  evalcal --version",
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if _, err := fmt.Fprintln(f.io.Out, versionLine()); err != nil {
				return fmt.Errorf("version: write stdout: %w", err)
			}
			return nil
		},
	}
}

// noArgs is cobra.NoArgs as a usage error naming the command.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorHint(fmt.Sprintf("Run '%s --help' for usage.", c.CommandPath()),
			"%s: unexpected argument %q", c.Name(), args[0])
	}
	return nil
}

// exactlyOneArg is cobra.ExactArgs(1) as a usage error naming the command
// and the argument it wants.
func exactlyOneArg(name, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != 1 {
			return usageErrorHint(fmt.Sprintf("Run '%s --help' for usage.", c.CommandPath()),
				"%s: want one %s, got %d arguments", name, what, len(args))
		}
		return nil
	}
}
