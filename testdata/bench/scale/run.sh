#!/bin/sh
# Scale benchmark of `evalcal run --inspections` (issue 26): saved
# inspections of N runs, a light and a deep line each
# (testdata/gensaved), for each N in SIZES; unsharded, and with SHARDS > 0
# also as SHARDS shards (`--shard i/SHARDS`) whose CPU is summed, and
# `merge` of their reports. Prints wall time, CPU (user + sys) and peak RSS
# from /usr/bin/time -v, and the CPU growth exponent between consecutive
# sizes: log(cpu2/cpu1) / log(n2/n1) (1 is linear), and the sizes of the
# report and of its runs file (written next to it above 10,000 runs).
#
# usage: testdata/bench/scale/run.sh          (from the repository root)
# env:   EVALCAL=path   a binary to measure instead of building ./cmd/evalcal
#        SIZES="..."    run counts (default: 10000 30000 100000)
#        SHARDS=n       also measure n shards and their merge (default 0)
#        SHARD_RUNS=N   the size the shards are measured at (default: the first of SIZES)
#        KEEP=1         keep the temporary directory
set -eu
SIZES=${SIZES:-10000 30000 100000}
SHARDS=${SHARDS:-0}
set -- $SIZES
SHARD_RUNS=${SHARD_RUNS:-$1}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/evalcal-bench-scale.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$DIR"' EXIT INT TERM
if [ -z "${EVALCAL:-}" ]; then
	go build -o "$DIR/evalcal" ./cmd/evalcal
	EVALCAL=$DIR/evalcal
fi
go build -o "$DIR/gensaved" ./testdata/gensaved
echo "binary: $EVALCAL"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), GOGC=${GOGC:-unset} GOMEMLIMIT=${GOMEMLIMIT:-unset}"

# measure NAME ARGS... (wall, CPU, peak RSS of one evalcal call)
. testdata/bench/measure.sh

# bytes FILE: its size, or 0 when absent.
bytes() { if [ -f "$1" ]; then wc -c <"$1" | tr -d ' '; else echo 0; fi; }

printf '\n| runs | wall | CPU | peak RSS | CPU exponent from the previous size | report | runs file |\n|---|---|---|---|---|---|---|\n'
prevn= prevc=
for n in $SIZES; do
	"$DIR/gensaved" -n "$n" >"$DIR/saved-$n.jsonl"
	mkdir -p "$DIR/whole-$n"
	set -- $(measure "run-$n" run --quiet --no-cache --inspections "$DIR/saved-$n.jsonl" -o "$DIR/whole-$n/report.yaml")
	exp=-
	[ -n "$prevn" ] && exp=$(awk -v a="$prevc" -v b="$2" -v m="$prevn" -v n="$n" 'BEGIN { printf "%.2f", log(b / a) / log(n / m) }')
	printf '| %s | %.2f s | %.2f s | %d MiB | %s | %s bytes | %s bytes |\n' "$n" "$1" "$2" "$3" "$exp" \
		"$(bytes "$DIR/whole-$n/report.yaml")" "$(bytes "$DIR/whole-$n/report.runs.jsonl")"
	[ "$n" = "$SHARD_RUNS" ] && unc=$2
	prevn=$n prevc=$2
	[ "$n" = "$SHARD_RUNS" ] || rm -f "$DIR/saved-$n.jsonl" "$DIR/whole-$n/report.runs.jsonl"
done

[ "$SHARDS" -gt 0 ] || exit 0
n=$SHARD_RUNS
[ -f "$DIR/whole-$n/report.yaml" ] || { echo "SHARD_RUNS=$n is not one of SIZES" >&2; exit 2; }
mkdir -p "$DIR/shards" "$DIR/merged"
sumc=0 maxr=0 i=1
while [ "$i" -le "$SHARDS" ]; do
	set -- $(measure "shard-$i" run --quiet --no-cache --shard "$i/$SHARDS" --inspections "$DIR/saved-$n.jsonl" -o "$DIR/shards/shard-$i.yaml")
	sumc=$(awk -v a="$sumc" -v b="$2" 'BEGIN { print a + b }')
	[ "$3" -gt "$maxr" ] && maxr=$3
	i=$((i + 1))
done
# The merged report goes where the unsharded one's name leads (report.yaml,
# report.runs.jsonl when there is one), so that both compare whole.
set -- $(measure merge merge -o "$DIR/merged/report.yaml" "$DIR"/shards/shard-*.yaml)
same=no
cmp -s "$DIR/merged/report.yaml" "$DIR/whole-$n/report.yaml" && same=yes
if [ -f "$DIR/whole-$n/report.runs.jsonl" ]; then
	cmp -s "$DIR/merged/report.runs.jsonl" "$DIR/whole-$n/report.runs.jsonl" || same="no (runs file)"
fi
printf '\n| %d runs | CPU | peak RSS | / unsharded CPU |\n|---|---|---|---|\n' "$n"
printf '| %d shards, summed | %.2f s | %d MiB (largest) | %.2f |\n' "$SHARDS" "$sumc" "$maxr" "$(awk -v a="$sumc" -v b="$unc" 'BEGIN { print a / b }')"
printf '| merge | %.2f s | %d MiB | %.2f |\n' "$2" "$3" "$(awk -v a="$2" -v b="$unc" 'BEGIN { print a / b }')"
echo "merged report byte-identical to the unsharded one: $same"
