#!/bin/sh
# Run-scale benchmark of `evalcal run` (issue 12.2): the bundled corpus
# copied to N runs (default 20,000) in a temporary directory, the builtin
# inspector, each output format written with -o. For each format: a cold
# run (empty cache: every run described, hashed and inspected; with
# SAME_CONTENT=1 most inspections are served by an identical copy's
# entry) and a warm rerun (every description and inspection cached), with
# wall time, CPU time (user + sys) and peak RSS
# from /usr/bin/time -v, and the warm/cold ratios (target: under 0.10).
#
# usage: testdata/bench/run/run.sh [N]        (from the repository root)
# env:   EVALCAL=path   an evalcal binary to measure instead of building
#                       ./cmd/evalcal (e.g. an older build, for before/after)
#        CORPUS=dir     reuse a corpus made by an earlier run of this script
#                       (`go run ./testdata/genruns -replicate N -distinct -out dir`)
#        FORMATS="..."  the formats to measure (default: yaml json markdown html)
#        KEEP=1         keep the temporary directory
#        SAME_CONTENT=1 copy the runs as they are (400 identical copies of each
#                       bundled run), so that the first run serves most
#                       inspections from an identical copy's cache entry;
#                       by default each copy gets a replica.txt naming it
#                       (genruns -distinct) and the first run inspects every
#                       run, as on a real corpus
set -eu
N=${1:-20000}
FORMATS=${FORMATS:-yaml json markdown html}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/evalcal-bench-run.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$DIR"' EXIT INT TERM
if [ -z "${EVALCAL:-}" ]; then
	go build -o "$DIR/evalcal" ./cmd/evalcal
	EVALCAL=$DIR/evalcal
fi
if [ -z "${CORPUS:-}" ]; then
	CORPUS=$DIR/runs
	distinct=-distinct
	[ "${SAME_CONTENT:-0}" = 1 ] && distinct=
	go run ./testdata/genruns -replicate "$N" $distinct -out "$CORPUS" >/dev/null
	# A run whose files changed within 2 s of its listing is not stored in
	# the describe cache ("racily clean"); let the copies age past that.
	sleep 3
fi
echo "corpus: $CORPUS ($(find "$CORPUS" -mindepth 1 -maxdepth 1 -type d | wc -l) runs, $(find "$CORPUS" -type f | wc -l) files)"
echo "binary: $EVALCAL ($("$EVALCAL" version 2>/dev/null | head -n 1))"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

# measure NAME ARGS... (wall, CPU, peak RSS of one evalcal call)
. testdata/bench/measure.sh

printf '\n| format | cold wall | cold CPU | cold peak RSS | warm wall | warm CPU | warm peak RSS | warm/cold wall | warm/cold CPU |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for f in $FORMATS; do
	cache=$DIR/cache-$f
	ext=$f
	[ "$f" = markdown ] && ext=md
	set -- $(measure "cold-$f" run --quiet --cache "$cache" -o "$DIR/report.$ext" "$CORPUS")
	cw=$1 cc=$2 cr=$3
	set -- $(measure "warm-$f" run --quiet --cache "$cache" -o "$DIR/report.$ext" "$CORPUS")
	ww=$1 wc=$2 wr=$3
	awk -v f="$f" -v cw="$cw" -v cc="$cc" -v cr="$cr" -v ww="$ww" -v wc="$wc" -v wr="$wr" 'BEGIN {
		printf "| %s | %.1f s | %.1f s | %d MiB | %.2f s | %.2f s | %d MiB | %.3f | %.3f |\n", f, cw, cc, cr, ww, wc, wr, ww / cw, wc / cc }'
	rm -rf "$cache"
done
