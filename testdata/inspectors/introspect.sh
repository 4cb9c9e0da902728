#!/bin/sh
# introspect.sh: answers pass with a summary describing how it was run:
#   ppid=PARENT pwd=WORKING_DIRECTORY call=$EVALCAL_CALL markers=N big=M
# where N counts EVALCAL_CALL entries in its environment and M is the
# length of $EVALCAL_TEST_BIG. When the run directory holds a file named
# "hang" it never answers instead: it starts a child, records both pids
# in $EVALCAL_TEST_STATE (shell.pid, child.pid) and waits.
if [ -e "$EVALCAL_RUN/hang" ]; then
	sleep 1000 &
	echo $! >"$EVALCAL_TEST_STATE/child.pid"
	echo $$ >"$EVALCAL_TEST_STATE/shell.pid"
	wait
fi
markers=$(env | grep -c '^EVALCAL_CALL=')
printf '{"system":"s","runtime_fidelity":70,"task_effectiveness":70,"verdict":"pass","summary":"ppid=%s pwd=%s call=%s markers=%s big=%s"}\n' \
	"$PPID" "$(pwd)" "$EVALCAL_CALL" "$markers" "${#EVALCAL_TEST_BIG}"
