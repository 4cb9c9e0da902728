#!/bin/sh
# Import scale benchmark (issue 26): `evalcal run` on an inspect_ai .json
# log of N samples (testdata/geninspect: scorer_a on the light side,
# scorer_b on the deep) and on promptfoo's JSON Lines output of N results
# (testdata/genpromptfoo: the contains assertion light, llm-rubric deep),
# for each N in SIZES, as a user runs it:
#
#	evalcal run --quiet --no-cache --light 'inspect:LOG.json#scorer_a' --deep 'inspect:LOG.json#scorer_b' -o DIR/report.yaml
#
# Prints a table per format: wall time, CPU (user + sys) and peak RSS from
# /usr/bin/time -v, and the CPU growth exponent between consecutive sizes:
# log(cpu2/cpu1) / log(n2/n1) (1 is linear). With PROFILE=1 each call also
# writes a CPU profile (EVALCAL_CPUPROFILE) kept next to the outputs (use
# with KEEP=1).
#
# usage: testdata/bench/scale/importers.sh          (from the repository root)
# env:   EVALCAL=path   a binary to measure instead of building ./cmd/evalcal
#        SIZES="..."    sample counts (default: 10000 100000; README's table: 10000 100000 1000000)
#        FORMATS="..."  inspect and/or promptfoo (default: both)
#        PROFILE=1      write a CPU profile of each call
#        KEEP=1         keep the temporary directory
set -eu
SIZES=${SIZES:-10000 100000}
FORMATS=${FORMATS:-inspect promptfoo}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/evalcal-bench-import.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$DIR"' EXIT INT TERM
if [ -z "${EVALCAL:-}" ]; then
	go build -o "$DIR/evalcal" ./cmd/evalcal
	EVALCAL=$DIR/evalcal
fi
go build -o "$DIR/geninspect" ./testdata/geninspect
go build -o "$DIR/genpromptfoo" ./testdata/genpromptfoo
echo "binary: $EVALCAL"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), GOGC=${GOGC:-unset} GOMEMLIMIT=${GOMEMLIMIT:-unset}"

# measure NAME ARGS... (wall, CPU, peak RSS of one evalcal call)
. testdata/bench/measure.sh

for format in $FORMATS; do
	case $format in
	inspect) gen=geninspect ext=json light=scorer_a deep=scorer_b ;;
	promptfoo) gen=genpromptfoo ext=jsonl light=contains deep=llm-rubric ;;
	*) echo "unknown format $format (inspect, promptfoo)" >&2; exit 2 ;;
	esac
	printf '\n%s (%s)\n\n| samples | input | wall | CPU | peak RSS | CPU exponent from the previous size |\n|---|---|---|---|---|---|\n' \
		"$format" "$gen"
	prevn= prevc=
	for n in $SIZES; do
		in=$DIR/$format-$n.$ext
		"$DIR/$gen" -n "$n" >"$in"
		mb=$(awk -v b="$(wc -c <"$in")" 'BEGIN { printf "%.0f", b / 1e6 }')
		mkdir -p "$DIR/$format-$n"
		[ "${PROFILE:-0}" = 1 ] && export EVALCAL_CPUPROFILE=$DIR/$format-$n.cpu
		set -- $(measure "$format-$n" run --quiet --no-cache --light "$format:$in#$light" --deep "$format:$in#$deep" \
			-o "$DIR/$format-$n/report.yaml")
		unset EVALCAL_CPUPROFILE
		exp=-
		[ -n "$prevn" ] && exp=$(awk -v a="$prevc" -v b="$2" -v m="$prevn" -v n="$n" 'BEGIN { printf "%.2f", log(b / a) / log(n / m) }')
		printf '| %s | %s MB | %.2f s | %.2f s | %d MiB | %s |\n' "$n" "$mb" "$1" "$2" "$3" "$exp"
		prevn=$n prevc=$2
		rm -f "$in" "$DIR/$format-$n/report.runs.jsonl"
	done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
