#!/bin/sh
# leaves_child.sh: answers and exits 0 but leaves a child holding stdout;
# the child's pid goes to $EVALCAL_TEST_STATE/child.pid.
sleep 1000 &
echo $! >"$EVALCAL_TEST_STATE/child.pid"
printf '{"system":"s","runtime_fidelity":70,"task_effectiveness":70,"verdict":"pass"}\n'
