#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench's plots, from its CSV, with gnuplot: p50 latency of the
# static child against the parent's memory (small, 256m, 1g) and against
# its open fds (10-fds, 10k-fds, 100k-fds), one line per method, on a
# logarithmic latency axis: fork of 1 GiB and vfork with 100k fds cost
# hundreds of times a small spawn. Counted runs (clock icount) plot
# thousands of instructions, which is what their microseconds are.
#   bench-plot.sh results.csv OUTDIR
set -e
csv=$1 dir=$2
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
ylabel='p50 latency, spawn to reap (us)'
grep -q ',icount,' "$csv" &&
	ylabel='p50, spawn to reap (thousand instructions, icount)'

# One file per method and plot: x, p50. "small" is the parent with no
# extra memory; its fd count is that of 10-fds' order, so not reused.
# Of several repetitions (the rep column), the first.
awk -F, -v d="$data" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "rep") rep = i; next }
rep && $rep != 1 { next }
$3 == "static" {
	x = $1 == "small" ? 0 : $1 == "256m" ? 256 : $1 == "1g" ? 1024 : -1
	if (x >= 0)
		print x, $5 > (d "/mem-" $2)
	x = $1 == "10-fds" ? 10 : $1 == "10k-fds" ? 10000 : $1 == "100k-fds" ? 100000 : -1
	if (x >= 0)
		print x, $5 > (d "/fds-" $2)
}' "$csv"

plot() {	# kind output title xlabel [log]
	lines=
	for f in "$data/$1"-*; do
		[ -e "$f" ] || continue
		lines="$lines${lines:+, }'$f' using 1:2 with linespoints title '${f##*/$1-}'"
	done
	# A subset run may have no scenario for this plot.
	[ -n "$lines" ] || { echo "bench-plot: no data for $2"; return 0; }
	gnuplot <<-EOF
	set terminal png size 800,500 font ",10" noenhanced
	set output '$2'
	set title "$3"
	set xlabel '$4'
	set ylabel '$ylabel'
	set logscale y
	set key outside right
	set grid
	$5
	plot $lines
	EOF
	echo "bench-plot: $2"
}

plot mem "$dir/latency-vs-memory.png" \
	'Static child: latency against the parent'"'"'s touched memory' 'parent memory (MiB)'
plot fds "$dir/latency-vs-fds.png" \
	'Static child: latency against the parent'"'"'s open fds' 'open fds' 'set logscale x'
