#!/bin/sh
# good.sh RUN DEPTH: prints a valid inspection (older "program" key). It
# exits 4 when its arguments disagree with EVALCAL_RUN / EVALCAL_DEPTH, so
# a test sees whether {run} and {depth} were substituted.
if [ "$1" != "$EVALCAL_RUN" ] || [ "$2" != "$EVALCAL_DEPTH" ]; then
	echo "good.sh: arguments '$1' '$2' differ from the environment" >&2
	exit 4
fi
if [ "$2" = light ]; then rf=80; te=70; verdict=pass; else rf=60.5; te=45; verdict=partial; fi
echo "good.sh: inspecting $EVALCAL_RUN_ID at $2" >&2
printf '{"run_id":"%s","program":"good-system","depth":"%s","runtime_fidelity":%s,"task_effectiveness":%s,"verdict":"%s","flags":[{"id":"missing-binding","severity":"warning","description":"binding absent","evidence":"bindings/x.md"}],"summary":"checked","cost":{"seconds":0.01}}\n' \
	"$EVALCAL_RUN_ID" "$2" "$rf" "$te" "$verdict"
