#!/bin/sh
# echo_run.sh RUN: answers with the run path it was given as its summary,
# and fails unless the argument equals EVALCAL_RUN.
if [ "$1" != "$EVALCAL_RUN" ]; then
	echo "echo_run.sh: argument '$1' differs from EVALCAL_RUN '$EVALCAL_RUN'" >&2
	exit 4
fi
printf '{"system":"s","runtime_fidelity":70,"task_effectiveness":70,"verdict":"pass","summary":"%s"}\n' "$1"
