#!/bin/sh
# bad_verdict.sh: a verdict outside pass|partial|fail.
printf '{"system":"s","runtime_fidelity":70,"task_effectiveness":50,"verdict":"maybe"}\n'
