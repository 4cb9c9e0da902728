#!/bin/sh
# perturbed.sh: a judge sensitive to one perturbation (run --perturb).
# Light passes every run, except: on repeat 1 of runs whose id ends in 0
# it fails (noise across --repeat), and under EVALCAL_PERTURB=order it
# fails runs whose id ends in a hex digit 0-7 (order-sensitive). Under
# EVALCAL_PERTURB=rubric it answers as unperturbed (insensitive). Deep
# always says partial. Reads EVALCAL_RUN_ID, EVALCAL_DEPTH,
# EVALCAL_REPEAT and EVALCAL_PERTURB.
last=$(printf '%s' "$EVALCAL_RUN_ID" | tail -c 1)
verdict=pass; rf=80; te=75
if [ "$EVALCAL_DEPTH" = deep ]; then
	verdict=partial; rf=60; te=55
elif [ "$EVALCAL_PERTURB" = order ]; then
	case "$last" in
	[0-7]) verdict=fail; rf=30; te=20 ;;
	esac
elif [ "$EVALCAL_REPEAT" = 1 ] && [ "$last" = 0 ]; then
	verdict=fail; rf=30; te=20
fi
printf '{"run_id":"%s","system":"perturbed","depth":"%s","runtime_fidelity":%s,"task_effectiveness":%s,"verdict":"%s","flags":[],"summary":"repeat %s %s"}\n' \
	"$EVALCAL_RUN_ID" "$EVALCAL_DEPTH" "$rf" "$te" "$verdict" "$EVALCAL_REPEAT" "$EVALCAL_PERTURB"
