#!/bin/sh
# rank_judge.sh LOG NAME DEPTH: a judge whose answers are known, for the
# evalcal rank tests. It appends "NAME DEPTH RUN_ID" to LOG (one line a
# call, so a test counts the calls) and answers: lax passes every run,
# strict fails every run, oracle and deep pass the runs whose id ends in
# a hex digit 0-7 and fail the others; fails (exit 1) always fails the
# call. Reports 0.25 s and $0.001 (lax), $0.004 (oracle) or $0.002.
echo "$2 $3 $EVALCAL_RUN_ID" >> "$1"
last=$(printf '%s' "$EVALCAL_RUN_ID" | tail -c 1)
usd=0.002
case "$2" in
lax) v=pass; usd=0.001 ;;
strict) v=fail ;;
fails) echo "rank_judge.sh: failing on purpose" >&2; exit 1 ;;
*)
	usd=0.004
	case "$last" in
	[0-7]) v=pass ;;
	*) v=fail ;;
	esac
	;;
esac
if [ "$v" = pass ]; then s=80; else s=20; fi
printf '{"run_id":"%s","system":"s","depth":"%s","runtime_fidelity":%s,"task_effectiveness":%s,"verdict":"%s","flags":[],"summary":"%s","cost":{"seconds":0.25,"usd":%s}}\n' \
	"$EVALCAL_RUN_ID" "$3" "$s" "$s" "$v" "$2" "$usd"
