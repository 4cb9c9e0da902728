#!/bin/sh
# Nightly drift check: freeze the anchor runs once, then every night ask the
# judge again and say whether it changed (README: "Catching a judge that
# changed"). Run it from the directory holding runs/, e.g. from cron:
#
#   15 3 * * * cd /srv/evals && ./drift.sh >> drift.log 2>&1
#
# EVALCAL_LIGHT and EVALCAL_DEEP are the judges (default: the built-in
# inspector); EVALCAL_NIGHT names tonight's document (default: the date).
# Exit 3 means drift was detected: look at drift/$night.yaml.
set -u
LIGHT=${EVALCAL_LIGHT:-builtin}
DEEP=${EVALCAL_DEEP:-builtin}
night=${EVALCAL_NIGHT:-$(date +%F)}
mkdir -p drift
if [ ! -f anchors.yaml ]; then
	evalcal anchor freeze --quiet --light "$LIGHT" --deep "$DEEP" -o anchors.yaml runs/ || exit $?
fi
evalcal drift --quiet --light "$LIGHT" --history drift anchors.yaml -o "drift/$night.yaml"
status=$?
if [ "$status" -eq 3 ]; then
	echo "drift.sh: the judge changed: see drift/$night.yaml" >&2
fi
exit $status
