#!/bin/sh
# sleep.sh: the schedule benchmark's inspector (issue 12.4): sleeps
# $EVALCAL_TEST_DELAY seconds (default 0.05), then answers pass. Two
# processes per call (this shell and sleep), as a real inspector has at
# least.
sleep "${EVALCAL_TEST_DELAY:-0.05}"
printf '{"system":"s","runtime_fidelity":70,"task_effectiveness":70,"verdict":"pass"}\n'
