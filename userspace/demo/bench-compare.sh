#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# How far apart two make bench runs (or the repetitions within one) are:
# for every case (scenario, child) and method, the ratio to vfork+execve
# in each (the column vs_vfork, of total times, or another such as
# trimmed_vs_vfork), and the largest relative difference, over all cases
# and over the small-parent ones. With one CSV, its repetitions are
# compared with each other; with two, the runs' means per case.
#   bench-compare.sh [-c column] results.csv [other.csv]
set -e
column=vs_vfork
if [ "${1:-}" = -c ]; then
	column=$2
	shift 2
fi
[ $# -ge 1 ] || { echo "usage: bench-compare.sh [-c column] results.csv [other.csv]" >&2; exit 2; }
awk -F, -v runs=$# -v column="$column" '
FNR == 1 {
	for (i = 1; i <= NF; i++)
		col[$i] = i
	if (!(column in col)) {
		print "bench-compare: " FILENAME " has no " column " column (an older CSV)"
		exit 1
	}
	file++
	next
}
{
	key = $col["scenario"] "/" $col["child"] "/" $col["method"]
	run = runs == 2 ? file : $col["rep"]
	sum[key, run] += $col[column]
	cnt[key, run]++
	if (!(key in seen)) {
		seen[key] = 1
		keys[++nkeys] = key
	}
	if (!(run in runseen)) {
		runseen[run] = 1
		runlist[++nruns] = run
	}
}
END {
	if (nruns < 2) {
		print "bench-compare: one run only, nothing to compare"
		exit 0
	}
	printf "%-36s", "case/method (" column ")"
	for (r = 1; r <= nruns; r++)
		printf " %9s", (runs == 2 ? "run " : "rep ") runlist[r]
	printf " %9s\n", "spread"
	for (k = 1; k <= nkeys; k++) {
		key = keys[k]
		lo = 1e300; hi = 0; n = 0
		printf "%-36s", key
		for (r = 1; r <= nruns; r++) {
			if (!cnt[key, runlist[r]]) {
				printf " %9s", "-"
				continue
			}
			v = sum[key, runlist[r]] / cnt[key, runlist[r]]
			printf " %9.4f", v
			if (v < lo) lo = v
			if (v > hi) hi = v
			n++
		}
		spread = n > 1 && lo > 0 ? (hi - lo) / lo * 100 : 0
		printf " %8.2f%%\n", spread
		if (spread > worst) { worst = spread; worst_key = key }
		if (key ~ /^small\// && spread > worst_small) { worst_small = spread; small_key = key }
	}
	printf "%s, largest spread: %.2f%% (%s); small parent: %.2f%% (%s)\n",
	       column, worst, worst_key, worst_small, small_key
}' "$@"
