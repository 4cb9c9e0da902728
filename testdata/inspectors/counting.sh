#!/bin/sh
# counting.sh DEPTH: an inspector that appends "DEPTH RUN_ID" to
# $EVALCAL_TEST_CALLS on every call (so a test counts the calls per depth)
# and prints an inspection whose score is the run id's cksum mod 101 (light)
# and its verdict by the 40/70 rule; deep fails every run whose score is
# 60-79, so light and deep disagree near the pass cut.
id=$EVALCAL_RUN_ID
echo "$1 $id" >> "$EVALCAL_TEST_CALLS"
score=$(printf '%s' "$id" | cksum | awk '{print $1 % 101}')
verdict=partial
[ "$score" -lt 40 ] && verdict=fail
[ "$score" -ge 70 ] && verdict=pass
if [ "$1" = deep ] && [ "$score" -ge 60 ] && [ "$score" -lt 80 ]; then verdict=fail; fi
printf '{"run_id":"%s","system":"s","depth":"%s","runtime_fidelity":%s,"task_effectiveness":%s,"verdict":"%s","summary":"counted","cost":{"seconds":0}}\n' \
	"$id" "$1" "$score" "$score" "$verdict"
