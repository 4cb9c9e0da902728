#!/bin/sh
# setsid_children.sh [hang]: starts processes that leave the inspector's
# process group and session, then answers (or, with "hang", never does):
#   setsid.pid   `setsid sleep 300`, a new session;
#   envless.pid  a sleep under a double fork, in a new session, with the
#                environment cleared (nothing marks it as ours);
#   nohup.pid    `nohup sleep 300` in the background of a subshell that
#                exits at once (orphaned while the call runs).
# Each pid goes to $EVALCAL_TEST_STATE/NAME.$$ ($$ = this shell) so that
# concurrent calls do not overwrite each other.
state=$EVALCAL_TEST_STATE
setsid sleep 300 &
echo $! >"$state/setsid.pid.$$"
(env -i setsid sh -c 'sleep 300 & echo $! >"$1"; wait' sh "$state/envless.pid.$$" &)
(nohup sleep 300 >/dev/null 2>&1 & echo $! >"$state/nohup.pid.$$")
while [ ! -s "$state/envless.pid.$$" ] || [ ! -s "$state/nohup.pid.$$" ]; do sleep 0.01; done
if [ "$1" = hang ]; then
	sleep 1000
fi
printf '{"system":"s","runtime_fidelity":70,"task_effectiveness":70,"verdict":"pass"}\n'
