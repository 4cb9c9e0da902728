package importers

import (
	"context"
	"os"
	"sync"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/programs/spec"
)

// InspectKind is the spec kind "inspect:LOG[#SCORER][?OPTIONS]": an
// inspect_ai log (see LoadInspectWith and ParseSelector).
func InspectKind() spec.Kind {
	k := sourceKind(inspectDialect, "inspect:LOG[#SCORER][?OPTIONS]", readInspect)
	k.Dir = true // a log directory (LoadInspect)
	return k
}

// PromptfooKind is the spec kind "promptfoo:FILE[#ASSERTION][?OPTIONS]":
// a promptfoo results file (see LoadPromptfooWith and ParseSelector).
func PromptfooKind() spec.Kind {
	return sourceKind(promptfooDialect, "promptfoo:FILE[#ASSERTION][?OPTIONS]", readPromptfoo)
}

// parsedFile is a file an importer has read, before a scorer or
// assertion is chosen: source maps it for one, and leaves it as it can
// be mapped again for another.
type parsedFile interface {
	source(selector string, opts Options) (*Source, []inspection.Run, error)
}

// reader reads one tool's results file.
type reader func(ctx context.Context, path string, lim limits) (parsedFile, error)

// sourceKind is the kind of an importer, named by its dialect: its
// selector and options are checked before any work, and its file brings
// the runs. The kind keeps the last regular file it read (lastFile), so
// that `--light inspect:LOG#a --deep inspect:LOG#b` reads LOG once.
func sourceKind(d Dialect, usage string, read reader) spec.Kind {
	last := &lastFile{}
	return spec.Kind{Name: d.Name, Usage: usage,
		Check: func(arg string) error {
			_, sel := SplitSpec(arg)
			_, _, err := ParseSelector(d, sel)
			return err
		},
		Open: func(ctx context.Context, arg string, _ spec.Env) (spec.Opened, error) {
			path, sel := SplitSpec(arg)
			sel, mapping, err := ParseSelector(d, sel)
			if err != nil {
				return spec.Opened{}, err
			}
			f, err := last.read(ctx, path, defaultLimits, read)
			if err != nil {
				return spec.Opened{}, err
			}
			src, runs, err := f.source(sel, mapping)
			if err != nil {
				return spec.Opened{}, err
			}
			return spec.Opened{Inspector: src, Runs: runs, Imported: true}, nil
		},
		File: func(arg string) string {
			path, _ := SplitSpec(arg)
			return path
		},
	}
}

// lastFile is the last regular file a kind read, kept while the kind is
// (a command's registry lives while it opens its specs): reading it again
// gives the file read before while its path, size, modification time and
// identity (device and inode) are unchanged. Directories, pipes and
// devices are read every time; a read that failed is not kept.
type lastFile struct {
	mu   sync.Mutex
	path string
	info os.FileInfo
	file parsedFile
}

func (c *lastFile) read(ctx context.Context, path string, lim limits, read reader) (parsedFile, error) {
	info, err := os.Stat(path)
	keep := err == nil && info.Mode().IsRegular()
	c.mu.Lock()
	defer c.mu.Unlock()
	if keep && c.file != nil && c.path == path && os.SameFile(c.info, info) && c.info.Size() == info.Size() &&
		c.info.ModTime().Equal(info.ModTime()) {
		return c.file, nil
	}
	c.path, c.info, c.file = "", nil, nil // forget the last file before reading the next
	f, err := read(ctx, path, lim)
	if err != nil {
		return nil, err
	}
	if keep {
		c.path, c.info, c.file = path, info, f
	}
	return f, nil
}
