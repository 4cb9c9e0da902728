package main

import (
	"flag"
	"io"

	"github.com/evalcal/evalcal/report"
)

// writeDocument writes the requested document to path atomically, or to
// stdout when path is "" or "-".
func writeDocument(stdout io.Writer, path string, data []byte) error {
	if path == "" || path == "-" {
		_, err := stdout.Write(data)
		return err
	}
	return report.WriteFileAtomic(path, data)
}

// newFlagSet returns a FlagSet for a subcommand that reports errors
// instead of exiting, and prints its usage on stderr.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("evalcal "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseFlags parses args, turning a parse failure into a usage error.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return err
		}
		return usageErrorf("%s: %v", fs.Name(), err)
	}
	return nil
}
