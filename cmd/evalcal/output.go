package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/evalcal/evalcal/report"
)

// outputOptions are the flags every document-writing command shares:
// -o/--output and --format.
type outputOptions struct {
	Path   string // "" or "-": stdout
	Format string
	// formatGiven says whether --format was on the command line; only
	// then can it clash with the -o extension.
	formatGiven bool
	// RunsOut is --runs-out (run, merge): a file, auto or none; "" for
	// the commands without it (none).
	RunsOut string
}

// addFlags defines -o/--output and --format, with the given default
// format and the formats the command writes (the help lists them and the
// -o extensions that pick them).
func (o *outputOptions) addFlags(fs *pflag.FlagSet, what, defaultFormat string, formats []string) {
	var exts []string
	for _, e := range []string{".yaml", ".yml", ".json", ".md", ".html"} {
		for _, f := range formats {
			if extensionFormats[e] == f {
				exts = append(exts, e)
			}
		}
	}
	fs.StringVarP(&o.Path, "output", "o", "", "write the "+what+" to `FILE` atomically instead of stdout; "+
		orJoin(exts)+" picks the format")
	fs.StringVar(&o.Format, "format", defaultFormat, "output `FORMAT`: "+formatList(formats))
}

// orJoin is "a, b or c".
func orJoin(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// extensionFormats maps an -o file's extension (lower-cased) to the format
// it implies.
var extensionFormats = map[string]string{
	".yaml": "yaml", ".yml": "yaml", ".json": "json", ".md": "markdown", ".html": "html",
}

// canonicalFormat folds the alias md into markdown.
func canonicalFormat(f string) string {
	if f == "md" {
		return "markdown"
	}
	return f
}

// resolve settles the format: --format when given, else the one the -o
// extension implies, else the default. It is a usage error when --format
// and the extension disagree, when the format is not one of allowed, or
// when the extension implies a format the command does not write.
func (o *outputOptions) resolve(cmd string, allowed ...string) error {
	implied := ""
	if o.Path != "" && o.Path != "-" {
		implied = extensionFormats[strings.ToLower(filepath.Ext(o.Path))]
	}
	switch {
	case o.formatGiven && implied != "" && canonicalFormat(o.Format) != implied:
		return usageErrorf("%s: --format %s contradicts -o %s (a %s file); give one of them, or agree", cmd, o.Format, o.Path, implied)
	case !o.formatGiven && implied != "":
		o.Format = implied
	}
	for _, a := range allowed {
		if canonicalFormat(o.Format) == canonicalFormat(a) {
			return nil
		}
	}
	if !o.formatGiven && implied != "" {
		return usageErrorf("%s: -o %s names a %s file, but %s writes %s", cmd, o.Path, implied, cmd, formatList(allowed))
	}
	return usageErrorf("%s: --format must be %s, got %q", cmd, formatList(allowed), o.Format)
}

// formatList is "yaml, json, markdown or html" (without the md alias).
func formatList(formats []string) string {
	var names []string
	for _, f := range formats {
		if f != "md" {
			names = append(names, f)
		}
	}
	return orJoin(names)
}

// check makes sure, before any work, that the document can be written:
// stdout must be open; a file's directory must exist, be a directory and
// be writable (a temporary file is created and removed there), the file
// must not be a directory, and it must be none of inputs (compared with
// os.SameFile after following symlinks, so another spelling, a hard link
// or a symlink to an input is caught; "-" inputs are skipped). A closed
// stdout fails the work (exit 1); the rest are usage errors (exit 2). An
// existing file that is not a regular one (/dev/stdout, a FIFO) is written
// as it is and skips the directory check.
func (o *outputOptions) check(cmd string, stdout io.Writer, inputs ...string) error {
	if o.Path == "" || o.Path == "-" {
		if _, err := stdout.Write(nil); err != nil {
			return fmt.Errorf("%s: cannot write to stdout: %w; give -o FILE", cmd, err)
		}
		return nil
	}
	target := o.Path
	if resolved, err := filepath.EvalSymlinks(target); err == nil {
		target = resolved
	}
	fi, err := os.Stat(target)
	switch {
	case err == nil && fi.IsDir():
		return usageErrorf("%s: -o %s is a directory; name a file", cmd, o.Path)
	case err == nil:
		for _, in := range inputs {
			if in == "" || in == "-" {
				continue
			}
			if inFi, err := os.Stat(in); err == nil && os.SameFile(fi, inFi) {
				return usageErrorf("%s: -o %s is the input %s; write the output elsewhere", cmd, o.Path, in)
			}
		}
		if !fi.Mode().IsRegular() {
			return nil
		}
	case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return usageErrorf("%s: -o %s: %v", cmd, o.Path, err)
	}
	dir := filepath.Dir(target)
	dfi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usageErrorf("%s: -o %s: directory %s does not exist", cmd, o.Path, dir)
	case err != nil:
		return usageErrorf("%s: -o %s: %v", cmd, o.Path, err)
	case !dfi.IsDir():
		return usageErrorf("%s: -o %s: %s is not a directory", cmd, o.Path, dir)
	}
	probe, err := os.CreateTemp(dir, ".evalcal-probe-*")
	if err != nil {
		return usageErrorf("%s: -o %s: directory %s is not writable: %v", cmd, o.Path, dir, unwrapPathError(err))
	}
	name := probe.Name()
	_ = probe.Close()
	_ = os.Remove(name)
	return nil
}

// unwrapPathError drops the *PathError's operation and (random) path.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// write writes the document: atomically to the -o file, or to stdout,
// where a short write or a closed stdout is an error.
func (o *outputOptions) write(stdout io.Writer, data []byte) error {
	if o.Path == "" || o.Path == "-" {
		n, err := stdout.Write(data)
		if err == nil && n < len(data) {
			err = io.ErrShortWrite
		}
		if err != nil {
			return fmt.Errorf("write stdout: %w", err)
		}
		return nil
	}
	return report.WriteFileAtomic(o.Path, data)
}

// toFile reports whether the document goes to a file.
func (o *outputOptions) toFile() bool { return o.Path != "" && o.Path != "-" }

// closedWriter is stdout when the shell closed it (evalcal ... >&-):
// every write fails with errStdoutClosed.
type closedWriter struct{}

func (closedWriter) Write([]byte) (int, error) { return 0, errStdoutClosed }
