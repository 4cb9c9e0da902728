#!/bin/sh
# judge.sh SCORE: a member whose answer is known: both scores SCORE and the
# verdict DESIGN.md's rule gives them (fail below 40, pass from 70,
# partial between). SCORE "error" fails the call (exit 1).
if [ "$1" = error ]; then
	echo "judge.sh: failing on purpose" >&2
	exit 1
fi
if [ "$1" -lt 40 ]; then v=fail; elif [ "$1" -ge 70 ]; then v=pass; else v=partial; fi
printf '{"run_id":"%s","system":"s","depth":"%s","runtime_fidelity":%s,"task_effectiveness":%s,"verdict":"%s","flags":[],"summary":"judge %s","cost":{"seconds":0.5,"usd":0.001}}\n' \
	"$EVALCAL_RUN_ID" "$EVALCAL_DEPTH" "$1" "$1" "$v" "$1"
