package importers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// logManifest is the file inspect_ai writes beside the logs of a log
// directory (a listing of their headers, no samples); a directory load
// skips it.
const logManifest = "logs.json"

// readInspectDir reads a log directory, as inspect_ai users keep them
// (logs/): every .json and .eval file directly in dir (not in its
// subdirectories; hidden files and logs.json are skipped), in name order,
// as one log. A sample's run id is the log's file name, "/", and the
// sample id ("#epoch" added as in that log alone), so that samples 1,
// 2, ... of two logs are two runs, and the same directory
// given to --light and --deep names them alike; its system is its log's
// task. The identity hashes each log's name and SHA-256, so adding,
// removing or changing a log changes it.
//
// One bad log loses nothing else: a file that cannot be read, or holds no
// sample, is listed by Unattributed ("PATH: why; left out") and the other
// logs are read. The load fails when the directory cannot be listed, when
// no log in it has a sample (wrapping ErrNothingToImport), or when ctx
// ends.
func readInspectDir(ctx context.Context, dir string, lim limits) (*inspectLog, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("inspect: read directory %s: %w", dir, err)
	}
	all := &inspectLog{path: dir, idsFinal: true}
	sum := sha256.New()
	logs := 0
	for _, e := range entries { // os.ReadDir sorts by name
		name := e.Name()
		ext := filepath.Ext(name)
		if e.IsDir() || strings.HasPrefix(name, ".") || name == logManifest || (ext != ".json" && ext != ".eval") {
			continue
		}
		path := filepath.Join(dir, name)
		log, err := readInspectLog(ctx, path, lim)
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		if err != nil {
			all.unattributed = append(all.unattributed, fmt.Sprintf("%s; left out", strings.TrimPrefix(err.Error(), "inspect: ")))
			continue
		}
		all.unattributed = append(all.unattributed, log.unattributed...)
		if len(log.samples) == 0 {
			all.unattributed = append(all.unattributed, fmt.Sprintf("%s: no samples; left out", path))
			continue
		}
		log.renameLegacyScores()
		task := log.task
		if task == "" {
			task = "inspect"
		}
		epochs := log.sampleEpochs()
		for _, s := range log.samples {
			s.id = name + "/" + s.id
			if epochs > 1 {
				s.id += "#" + strconv.Itoa(s.epoch)
			}
			s.task = task
			all.samples = append(all.samples, s)
		}
		fmt.Fprintf(sum, "%s\x00%s\n", name, log.sum)
		logs++
	}
	if logs == 0 {
		first := ""
		if len(all.unattributed) > 0 {
			first = "; first: " + all.unattributed[0]
		}
		return nil, fmt.Errorf("inspect: %s: no inspect_ai log (.json, .eval) with samples in the directory (%w)%s", dir, ErrNothingToImport, first)
	}
	all.sum = hex.EncodeToString(sum.Sum(nil))
	return all, nil
}
