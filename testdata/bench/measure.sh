# Sourced by the bench scripts (run from the repository root), which set
# EVALCAL (the binary) and DIR (a scratch directory).
#
# measure NAME ARGS...: runs evalcal, prints "wall cpu rss_mib".
measure() {
	name=$1
	shift
	if ! /usr/bin/time -v "$EVALCAL" "$@" 2>"$DIR/$name.time" >/dev/null; then
		echo "evalcal $* failed:" >&2
		tail -n 30 "$DIR/$name.time" >&2
		exit 1
	fi
	awk -F': ' '
		/Elapsed \(wall clock\)/ { n = split($2, p, ":"); w = 0; for (i = 1; i <= n; i++) w = w * 60 + p[i] }
		/User time \(seconds\)/ { c += $2 }
		/System time \(seconds\)/ { c += $2 }
		/Maximum resident set size/ { r = $2 / 1024 }
		END { printf "%.2f %.2f %.0f\n", w, c, r }' "$DIR/$name.time"
}
