#!/bin/sh
# Side-by-side benchmark of `evalcal score` against the Python reference
# (score_ref.py: numpy + scikit-learn + statsmodels, the same statistics with
# a 1,000-resample index bootstrap) end to end, for three value
# distributions of 1M binary forecasts by 8 agents: confidences to 2
# decimals, to 4 decimals, and full float64 (a model's probabilities). Each
# run is repeated RUNS times (default 3) and the medians of wall time, CPU
# time and peak RSS (/usr/bin/time) are compared. Then evalcal alone on 5M
# float64 forecasts: time against 1M (near-linear: at most 5.5x) and peak
# memory (under 150 MB). Then 1M float64 forecasts by 1,000 agents (groups of
# about 1,000, either side of where the label's interval turns analytic) side
# by side again: many mid-size groups. compare.py checks every statistic of
# each pair.
#
# usage: testdata/bench/score/run.sh [N] [RUNS]   (from the repository root; N default 1000000)
set -eu
N=${1:-1000000}
RUNS=${2:-3}
BIG=$((N * 5))
DIR=${TMPDIR:-/tmp}/evalcal-bench-score
mkdir -p "$DIR"
HERE=testdata/bench/score
go build -o "$DIR/evalcal" ./cmd/evalcal
: > "$DIR/times"

for d in 2 4 full; do
	IN="$DIR/forecasts-$N-$d.jsonl"
	[ -f "$IN" ] || /usr/bin/python3 $HERE/gen.py "$N" "$IN" 1 8 "$d"
done
IN="$DIR/forecasts-$BIG-full.jsonl"
[ -f "$IN" ] || /usr/bin/python3 $HERE/gen.py "$BIG" "$IN" 2 8 full
IN="$DIR/forecasts-$N-full-1000.jsonl"
[ -f "$IN" ] || /usr/bin/python3 $HERE/gen.py "$N" "$IN" 1 1000 full

measure() { # label, command...
	label=$1; shift
	/usr/bin/time -f "%e %U %S %M" -o "$DIR/one.time" "$@" > /dev/null
	echo "$label $(cat "$DIR/one.time")" >> "$DIR/times"
	echo "  $label: $(cat "$DIR/one.time") (wall s, user s, sys s, peak KiB)"
}

for d in 2 4 full; do
	IN="$DIR/forecasts-$N-$d.jsonl"
	echo "$IN: $(wc -l < "$IN") lines, $(du -h "$IN" | cut -f1)"
	for r in $(seq "$RUNS"); do
		measure "evalcal-$d" "$DIR/evalcal" score --format json -o "$DIR/evalcal-$d.json" "$IN"
		measure "python-$d" /usr/bin/python3 $HERE/score_ref.py "$IN" "$DIR/python-$d.json"
	done
	/usr/bin/python3 $HERE/compare.py "$DIR/evalcal-$d.json" "$DIR/python-$d.json"
done
for r in $(seq "$RUNS"); do
	measure "evalcal-big" "$DIR/evalcal" score --format json -o "$DIR/evalcal-big.json" "$DIR/forecasts-$BIG-full.jsonl"
done
IN="$DIR/forecasts-$N-full-1000.jsonl"
for r in $(seq "$RUNS"); do
	measure "evalcal-many" "$DIR/evalcal" score --format json -o "$DIR/evalcal-many.json" "$IN"
	measure "python-many" /usr/bin/python3 $HERE/score_ref.py "$IN" "$DIR/python-many.json"
done
/usr/bin/python3 $HERE/compare.py "$DIR/evalcal-many.json" "$DIR/python-many.json"

/usr/bin/python3 - "$DIR/times" "$N" "$BIG" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    label, wall, usr, sys_, kib = line.split()
    rows.setdefault(label, []).append((float(wall), float(usr) + float(sys_), int(kib) / 1024))
def med(label, i):
    return statistics.median(r[i] for r in rows[label])
n, big = int(sys.argv[2]), int(sys.argv[3])
names = {"2": "confidences to 2 decimals", "4": "confidences to 4 decimals", "full": "full float64 (model probabilities)"}
print()
print(f"| {n:,} forecasts, 8 agents | evalcal wall | Python wall | wall ratio | CPU ratio | evalcal / Python peak RSS |")
print("|---|---|---|---|---|---|")
for d in ("2", "4", "full"):
    ew, pw = med(f"evalcal-{d}", 0), med(f"python-{d}", 0)
    ec, pc = med(f"evalcal-{d}", 1), med(f"python-{d}", 1)
    er, pr = med(f"evalcal-{d}", 2), med(f"python-{d}", 2)
    verdict = "faster" if pw >= ew else "SLOWER"
    print(f"| {names[d]} | {ew:.2f} s | {pw:.2f} s | {pw / ew:.1f}x {verdict} | {pc / ec:.1f}x | {er:.0f} / {pr:.0f} MiB |")
bw, bc, br = med("evalcal-big", 0), med("evalcal-big", 1), med("evalcal-big", 2)
fw, fc = med("evalcal-full", 0), med("evalcal-full", 1)
print(f"| {big:,} float64 forecasts, evalcal only | {bw:.2f} s | | {bw / fw:.2f}x the time of {n:,} (limit 5.5x) | {bc / fc:.2f}x the CPU of {n:,} | {br:.0f} MiB peak (limit 150) |")
ew, pw = med("evalcal-many", 0), med("python-many", 0)
ec, pc = med("evalcal-many", 1), med("python-many", 1)
er, pr = med("evalcal-many", 2), med("python-many", 2)
verdict = "faster" if pw >= ew else "SLOWER"
print(f"| {n:,} float64 forecasts by 1,000 agents | {ew:.2f} s | {pw:.2f} s | {pw / ew:.1f}x {verdict} | {pc / ec:.1f}x | {er:.0f} / {pr:.0f} MiB |")
print(f"(medians of {len(rows['evalcal-2'])} runs each)")
broken = []
if bw / fw > 5.5:
    broken.append(f"{big:,} forecasts took {bw / fw:.2f}x the time of {n:,} (limit 5.5x)")
if br > 150:
    broken.append(f"{big:,} forecasts peaked at {br:.0f} MiB (limit 150)")
for b in broken:
    print("LIMIT BROKEN: " + b, file=sys.stderr)
sys.exit(1 if broken else 0)
PY
