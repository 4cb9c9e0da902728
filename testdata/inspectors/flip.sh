#!/bin/sh
# flip.sh: a judge that disagrees with itself on a known share of runs.
# Light passes every run, except on repeat 1 of runs whose id ends in a hex
# digit 0-7, where it fails: those runs' verdicts are not unanimous over
# --repeat 3. Deep always says partial. Reads EVALCAL_RUN_ID, EVALCAL_DEPTH
# and EVALCAL_REPEAT.
last=$(printf '%s' "$EVALCAL_RUN_ID" | tail -c 1)
verdict=pass; rf=80; te=75
if [ "$EVALCAL_DEPTH" = deep ]; then
	verdict=partial; rf=60; te=55
elif [ "$EVALCAL_REPEAT" = 1 ]; then
	case "$last" in
	[0-7]) verdict=fail; rf=30; te=20 ;;
	esac
fi
printf '{"run_id":"%s","system":"flip","depth":"%s","runtime_fidelity":%s,"task_effectiveness":%s,"verdict":"%s","flags":[],"summary":"repeat %s"}\n' \
	"$EVALCAL_RUN_ID" "$EVALCAL_DEPTH" "$rf" "$te" "$verdict" "$EVALCAL_REPEAT"
