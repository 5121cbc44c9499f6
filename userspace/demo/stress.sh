#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make stress: stress-ng's stressors that start processes with
# posix_spawn(), once on glibc and once through the LD_PRELOAD shim (so
# through pidfd_config()), at each worker count, taking turns in one run.
# Prints bogo-ops/s of both and their ratio, then checks that nothing was
# left behind: no stress-ng process, no zombie. The harness fails the run
# on any kernel report.
#   stress.sh [SECONDS] [WORKERS...]
here=$(cd "$(dirname "$0")" && pwd)
shim=$here/../lib/libpidspawn-preload.so
secs=${1:-20}
[ $# -gt 0 ] && shift
workers=${*:-1 2 4}
out=$(mktemp)
trap 'rm -f "$out" "$out.trace"' EXIT
cd /tmp || exit 1

# spawn: posix_spawn() of stress-ng itself. exec: fork and vfork are its
# default ways in; --exec-fork-method spawn, where this stress-ng has it,
# makes it posix_spawn() too.
stressors="spawn"
stress-ng --exec 1 --exec-fork-method spawn --dry-run >/dev/null 2>&1 &&
	stressors="$stressors exec"

# stress-ng refuses to run these stressors as root: they run as nobody.
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

ops() {	# variant stressor workers: prints bogo-ops/s (real time)
	variant=$1 stressor=$2
	set -- --"$2" "$3" --timeout "${secs}s" --metrics-brief
	[ "$stressor" = exec ] && set -- "$@" --exec-fork-method spawn
	case $variant in
	glibc) as_nobody env -u LD_PRELOAD stress-ng "$@" >"$out" 2>&1 ;;
	shim) as_nobody env LD_PRELOAD="$shim" stress-ng "$@" >"$out" 2>&1 ;;
	esac || { echo "stress-ng failed:" >&2; cat "$out" >&2; exit 1; }
	awk -v s="$stressor" '$4 == s && $5 ~ /^[0-9]+$/ { print $9; found = 1 }
		END { if (!found) exit 1 }' "$out" ||
		{ echo "no metrics for $stressor:" >&2; cat "$out" >&2; exit 1; }
}

# The shim must be in use: one traced spawn stressor run says how it spawned.
as_nobody env LD_PRELOAD="$shim" PIDSPAWN_TRACE="$out.trace" \
	stress-ng --spawn 1 --spawn-ops 20 >/dev/null 2>&1
echo "stress-ng $(stress-ng --version | awk '{ print $3 }'): $secs s a run; shim's spawns in a traced run:" \
	"$(sed 's/^[^:]*: //' "$out.trace" 2>/dev/null | sort | uniq -c | tr '\n' ' ')"
rm -f "$out.trace"
printf '%-10s %7s %14s %14s %7s\n' stressor workers "glibc ops/s" "shim ops/s" ratio
for s in $stressors; do
	for w in $workers; do
		g=$(ops glibc "$s" "$w") || exit 1
		p=$(ops shim "$s" "$w") || exit 1
		awk -v s="$s" -v w="$w" -v g="$g" -v p="$p" \
			'BEGIN { printf "%-10s %7d %14.2f %14.2f %6.3fx\n", s, w, g, p, (g > 0 ? p / g : 0) }'
	done
done

sleep 2
left=$(ps -eo stat=,comm= | awk '$1 ~ /^Z/ || $2 ~ /^stress-ng/ { n++ } END { print n + 0 }')
echo "left behind: $left stress-ng processes or zombies"
[ "$left" -eq 0 ]
