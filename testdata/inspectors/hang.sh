#!/bin/sh
# hang.sh: never answers. It starts a child and records both pids in
# $EVALCAL_TEST_STATE so a test can check that a timeout kills the group.
sleep 1000 &
echo $! >"$EVALCAL_TEST_STATE/child.pid"
echo $$ >"$EVALCAL_TEST_STATE/shell.pid"
sleep 1000
