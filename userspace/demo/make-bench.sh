#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, a real program: an unmodified GNU make -j2 over RULES small
# rules (make starts a recipe without shell metacharacters with
# posix_spawn()), plain, with the LD_PRELOAD shim, and with the shim and
# its template cache, taking turns in ROUNDS rounds in one run. The shim
# leaves itself out of the recipes' LD_PRELOAD (lib/preload.c); two more
# variants show what that saves: the shim kept in the recipes too
# (PIDSPAWN_PRELOAD_CHILDREN=1), and plain make whose recipes alone
# preload the shim. Prints each variant's total time and its ratio to
# plain make; a traced round after the timed ones says how the recipes
# were spawned.
#   make-bench.sh [RULES] [ROUNDS]
here=$(cd "$(dirname "$0")" && pwd)
shim=$here/../lib/libpidspawn-preload.so
rules=${1:-300} rounds=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

i=1
{
	# The recipes alone preload the shim.
	printf 'ifdef SHIM_IN_RECIPES_ONLY\nexport LD_PRELOAD := $(SHIM_IN_RECIPES_ONLY)\nendif\n'
	printf 'all:'
	while [ $i -le "$rules" ]; do printf ' r%d' $i; i=$((i + 1)); done
	printf '\n.PHONY: all'
	i=1
	while [ $i -le "$rules" ]; do printf ' r%d' $i; i=$((i + 1)); done
	printf '\n'
	i=1
	while [ $i -le "$rules" ]; do printf 'r%d:\n\t@/bin/true %d\n' $i $i; i=$((i + 1)); done
} > "$work/Makefile"

now() { date +%s.%N; }
run() {	# variant [trace file]: prints the seconds one make took
	trace=${2:-}
	start=$(now)
	case $1 in
	plain) env -u LD_PRELOAD make -s -j2 -C "$work" >/dev/null ;;
	shim) LD_PRELOAD=$shim PIDSPAWN_TRACE=$trace make -s -j2 -C "$work" >/dev/null ;;
	templates) LD_PRELOAD=$shim PIDSPAWN_TEMPLATES=1 PIDSPAWN_TRACE=$trace \
		make -s -j2 -C "$work" >/dev/null ;;
	inherited) LD_PRELOAD=$shim PIDSPAWN_PRELOAD_CHILDREN=1 \
		make -s -j2 -C "$work" >/dev/null ;;
	recipes_only) env -u LD_PRELOAD make -s -j2 -C "$work" \
		SHIM_IN_RECIPES_ONLY="$shim" >/dev/null ;;
	esac || { echo "make failed ($1)" >&2; exit 1; }
	awk -v a="$(now)" -v b="$start" 'BEGIN { printf "%.6f\n", a - b }'
}
add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f\n", a + b }'; }

variants="plain shim templates inherited recipes_only"
# Untimed first: the first run reads make, the shell and /bin/true from
# disk, a wait that counted mode charges to whoever runs first.
for v in $variants; do
	eval "t_$v=0"
	run $v >/dev/null
done
r=0
while [ $r -lt "$rounds" ]; do
	for v in $variants; do
		eval "t_$v=\$(add \"\$t_$v\" \"\$(run $v)\")"
	done
	r=$((r + 1))
done
# Traced, untimed: how make's spawns went.
run shim "$work/trace" >/dev/null
run templates "$work/trace-t" >/dev/null

echo "GNU make -j2, $rules rules of /bin/true, $rounds rounds:"
show() {	# label variant
	eval "t=\$t_$2"
	printf '  %-40s %9.4f s  %6.3fx\n' "$1" "$t" \
		"$(awk -v a="$t_plain" -v b="$t" 'BEGIN { print a / b }')"
}
show "plain (glibc posix_spawn)" plain
show "LD_PRELOAD shim" shim
show "shim, template cache" templates
show "shim kept in the recipes too" inherited
show "glibc make, shim preloaded by recipes" recipes_only
echo "  spawns of a traced round, shim: $(sed 's/^[^:]*: //' "$work/trace" 2>/dev/null | sort | uniq -c | tr '\n' ' ')"
echo "  spawns of a traced round, cache: $(sed 's/^[^:]*: //' "$work/trace-t" 2>/dev/null | sort | uniq -c | tr '\n' ' ')"
