#!/bin/sh
# slow.sh RUN DEPTH: the good inspector after a pause of
# $EVALCAL_TEST_DELAY seconds (default 0.3), so a test can interrupt
# evalcal while some inspections have finished and others have not.
sleep "${EVALCAL_TEST_DELAY:-0.3}"
exec sh "$(dirname "$0")/good.sh" "$@"
