package corpusgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"time"
)

// runDirName is an OpenProse run directory name {YYYYMMDD}-{HHMMSS}-{rand6}.
var runDirName = regexp.MustCompile(`^\d{8}-\d{6}-[0-9a-z]{6}$`)

// ReplicaID is the id of copy i (0-based) in Replicate: one run a second
// from 2030-01-01T00:00:00Z, and the copy number in hex as the random
// part, so ids are distinct up to 16^6 copies, sort in copy order and
// never collide with a generated corpus (whose runs are dated 2026).
func ReplicaID(i int) string {
	t := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
	return fmt.Sprintf("%s-%06x", t.Format("20060102-150405"), i%(1<<24))
}

// Replicate writes n copies of the run directories of src into dst, the
// corpus at scale for benchmarks: copy i is src's run i mod R (runs in
// sorted order, R of them), renamed ReplicaID(i), with the same content.
// Only run directories (named like one) are copied; dst must not exist or
// be empty. Regular files and directories are copied; anything else in a
// run (a link, a pipe) is an error. ctx is checked before every copy.
func Replicate(ctx context.Context, src, dst string, n int) error {
	return replicate(ctx, src, dst, n, false)
}

// ReplicaNote is the file ReplicateDistinct adds to each copy.
const ReplicaNote = "replica.txt"

// ReplicateDistinct is Replicate with one more file in each copy,
// ReplicaNote, holding the copy's id and its source run, so that no two
// copies have the same content: as in a real corpus, where no two runs
// are alike, a first evalcal run then inspects every run instead of
// serving the copies of one run from one cache entry. The builtin
// inspector does not read the file.
func ReplicateDistinct(ctx context.Context, src, dst string, n int) error {
	return replicate(ctx, src, dst, n, true)
}

func replicate(ctx context.Context, src, dst string, n int, distinct bool) error {
	if n < 0 || n > 1<<24 {
		return fmt.Errorf("corpusgen: replicate: %d copies out of range 0..%d", n, 1<<24)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		return fmt.Errorf("corpusgen: replicate: %w", err)
	}
	var runs []string
	for _, e := range ents {
		if e.IsDir() && runDirName.MatchString(e.Name()) {
			runs = append(runs, e.Name())
		}
	}
	sort.Strings(runs)
	if len(runs) == 0 && n > 0 {
		return fmt.Errorf("corpusgen: replicate: no run directories in %s", src)
	}
	if ents, err := os.ReadDir(dst); err == nil && len(ents) > 0 {
		return fmt.Errorf("corpusgen: replicate into %s: directory is not empty", dst)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("corpusgen: replicate into %s: %w", dst, err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return fmt.Errorf("corpusgen: replicate: %w", err)
	}
	for i := range n {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("corpusgen: replicate: %w", err)
		}
		to := filepath.Join(dst, ReplicaID(i))
		if err := copyTree(filepath.Join(src, runs[i%len(runs)]), to); err != nil {
			return err
		}
		if distinct {
			note := fmt.Sprintf("replica %s of %s\n", ReplicaID(i), runs[i%len(runs)])
			if err := os.WriteFile(filepath.Join(to, ReplicaNote), []byte(note), 0o644); err != nil {
				return fmt.Errorf("corpusgen: replicate: %w", err)
			}
		}
	}
	return nil
}

// copyTree copies the regular files and directories under from to to.
func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("corpusgen: replicate: %w", err)
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return fmt.Errorf("corpusgen: replicate: %w", err)
		}
		target := filepath.Join(to, rel)
		switch {
		case d.IsDir():
			if err := os.MkdirAll(target, 0o755); err != nil {
				return fmt.Errorf("corpusgen: replicate: %w", err)
			}
			return nil
		case d.Type().IsRegular():
			return copyFile(p, target)
		}
		return fmt.Errorf("corpusgen: replicate %s: not a regular file or directory", p)
	})
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return fmt.Errorf("corpusgen: replicate: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("corpusgen: replicate: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("corpusgen: replicate %s: %w", to, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("corpusgen: replicate %s: %w", to, err)
	}
	return nil
}
