#!/bin/sh
# Side-by-side benchmark of `evalcal score` against the Python reference
# (numpy + scikit-learn + statsmodels) on the same JSONL file, end to end,
# with wall time and peak RSS from /usr/bin/time -v.
#
# usage: testdata/bench/score/run.sh [N]    (from the repository root; N lines, default 1500000)
set -eu
N=${1:-1500000}
DIR=${TMPDIR:-/tmp}/evalcal-bench-score
mkdir -p "$DIR"
IN="$DIR/forecasts-$N.jsonl"
[ -f "$IN" ] || /usr/bin/python3 testdata/bench/score/gen.py "$N" "$IN" 1
go build -o "$DIR/evalcal" ./cmd/evalcal
echo "input: $IN ($(wc -l < "$IN") lines, $(du -h "$IN" | cut -f1))"

measure() { # name, command...
	name=$1; shift
	/usr/bin/time -v "$@" 2> "$DIR/$name.time" > /dev/null
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$DIR/$name.time")
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$DIR/$name.time")
	usr=$(sed -n 's/.*User time (seconds): //p' "$DIR/$name.time")
	sys=$(sed -n 's/.*System time (seconds): //p' "$DIR/$name.time")
	echo "$name: wall $wall, cpu ${usr}s user + ${sys}s sys, peak RSS $((rss / 1024)) MiB"
}
measure evalcal "$DIR/evalcal" score --format json -o "$DIR/evalcal.json" "$IN"
measure python /usr/bin/python3 testdata/bench/score/score_ref.py "$IN" "$DIR/python.json"
/usr/bin/python3 testdata/bench/score/compare.py "$DIR/evalcal.json" "$DIR/python.json"
/usr/bin/python3 - "$DIR" <<'PY'
import re, sys
def get(name):
    t = open(f"{sys.argv[1]}/{name}.time").read()
    w = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", t).group(1).split(":")
    s = sum(float(x) * 60 ** i for i, x in enumerate(reversed(w)))
    r = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
    c = sum(float(re.search(p + r" time \(seconds\): (\S+)", t).group(1)) for p in ("User", "System"))
    return s, r, c
(gs, gr, gc), (ps, pr, pc) = get("evalcal"), get("python")
print(f"ratio: evalcal is {ps / gs:.1f}x faster end to end (wall), {pc / gc:.1f}x by CPU time, and uses {pr / gr:.1f}x less peak memory")
PY
