#!/bin/sh
# flaky.sh RUN DEPTH: fails the first call for each depth (a marker file in
# $EVALCAL_TEST_STATE remembers it), then behaves like good.sh.
marker="$EVALCAL_TEST_STATE/flaky-$EVALCAL_RUN_ID-$EVALCAL_DEPTH"
if [ ! -e "$marker" ]; then
	: >"$marker"
	echo "flaky.sh: transient failure" >&2
	exit 1
fi
exec "$(dirname "$0")/good.sh" "$@"
