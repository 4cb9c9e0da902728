package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// versionLine is what --version and `evalcal version` print: "evalcal "
// and the module version the binary was built from (the constant version
// when the build recorded none, as in `go run` or a test binary), then
// the VCS commit when the build recorded it, for example
//
//	evalcal v0.0.0-20261201145800-4f47090abcde+dirty (commit 4f47090abcde, modified)
//
// The version in a report (generated_by) stays the constant, so that a
// report does not depend on how the binary was built.
func versionLine() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "evalcal " + version
	}
	return versionFromBuildInfo(info)
}

// versionFromBuildInfo is versionLine for given build information.
func versionFromBuildInfo(info *debug.BuildInfo) string {
	v := version
	if mv := info.Main.Version; mv != "" && mv != "(devel)" {
		v = mv
	}
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
	line := "evalcal " + v
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
		Short: "print evalcal's version (module version and VCS commit)",
		Long: `Print evalcal's version: the module version the binary was built from (or
` + version + ` when the build recorded none) and the VCS commit, with ", modified"
when the working tree had changes. --version prints the same line.`,
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
