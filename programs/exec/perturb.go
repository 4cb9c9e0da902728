package execinspector

import (
	"crypto/sha256"
	"encoding/hex"
	"runtime"
	"strings"

	"github.com/evalcal/evalcal/inspection"
)

// WithEnv returns an inspector running in's command with vars
// ("NAME=VALUE") set in every call's environment besides the call's own
// variables: how evalcal run --perturb tells an exec: judge the
// perturbation to apply (EVALCAL_PERTURB and its parameters; README.md,
// "Perturbation tests"). Its identity is in's with "+env:" and the first
// 16 hex digits of the SHA-256 of vars, so its calls are cached apart. It
// has a reaper of its own (Close it too).
func (in *Inspector) WithEnv(vars ...string) inspection.Inspector {
	out := &Inspector{command: in.command, args: in.args, procs: newLauncher(),
		env: append(append([]string(nil), in.env...), vars...)}
	runtime.AddCleanup(out, (*launcher).release, out.procs)
	return out
}

// envIdentity is the identity suffix of extra variables.
func envIdentity(env []string) string {
	sum := sha256.Sum256([]byte(strings.Join(env, "\x00")))
	return "+env:" + hex.EncodeToString(sum[:8])
}
