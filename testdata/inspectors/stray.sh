#!/bin/sh
# stray.sh DEPTH: at depth light, starts a process that leaves the call's
# process group and session by a double fork and setsid, records its pid
# in $EVALCAL_TEST_STATE/stray.pid.$$, and answers. What that process
# keeps of the call depends on the file "keep" in the run directory:
#   pipe     the call's stderr, its environment cleared;
#   env      its environment (the call's marker), stdin, stdout and
#            stderr on /dev/null;
#   nothing  (no file) neither: it cannot be told apart from another
#            call's process.
# At depth deep it never answers: it records its pid in
# $EVALCAL_TEST_STATE/hang.pid.$$ and sleeps.
state=$EVALCAL_TEST_STATE
if [ "$1" = deep ]; then
	echo $$ >"$state/hang.pid.$$"
	exec sleep 1000
fi
keep=$(cat "$EVALCAL_RUN/keep" 2>/dev/null)
case $keep in
pipe) (env -i setsid sh -c 'sleep 300 </dev/null >/dev/null & echo $! >"$1"' sh "$state/stray.pid.$$" </dev/null >/dev/null &) ;;
env) (setsid sh -c 'sleep 300 </dev/null >/dev/null 2>&1 & echo $! >"$1"' sh "$state/stray.pid.$$" </dev/null >/dev/null 2>&1 &) ;;
*) (env -i setsid sh -c 'sleep 300 </dev/null >/dev/null 2>&1 & echo $! >"$1"' sh "$state/stray.pid.$$" </dev/null >/dev/null 2>&1 &) ;;
esac
while [ ! -s "$state/stray.pid.$$" ]; do sleep 0.01; done
printf '{"system":"s","runtime_fidelity":70,"task_effectiveness":70,"verdict":"pass"}\n'
