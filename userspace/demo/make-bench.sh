#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, a real program: an unmodified GNU make -j2 over RULES small
# rules (make starts a recipe without shell metacharacters with
# posix_spawn()), plain, with the LD_PRELOAD shim, and with the shim and
# its template cache, taking turns in ROUNDS rounds in one run. Prints
# each variant's total time and its ratio to plain make; the trace of the
# last shim round says how the recipes were spawned.
#   make-bench.sh [RULES] [ROUNDS]
here=$(cd "$(dirname "$0")" && pwd)
shim=$here/../lib/libpidspawn-preload.so
rules=${1:-300} rounds=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

i=1
{
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
run() {	# variant: prints the seconds one make took
	start=$(now)
	case $1 in
	plain) env -u LD_PRELOAD make -s -j2 -C "$work" >/dev/null ;;
	shim) LD_PRELOAD=$shim PIDSPAWN_TRACE=$work/trace make -s -j2 -C "$work" >/dev/null ;;
	templates) LD_PRELOAD=$shim PIDSPAWN_TEMPLATES=1 PIDSPAWN_TRACE=$work/trace-t \
		make -s -j2 -C "$work" >/dev/null ;;
	esac || { echo "make failed ($1)" >&2; exit 1; }
	awk -v a="$(now)" -v b="$start" 'BEGIN { printf "%.6f\n", a - b }'
}
add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f\n", a + b }'; }

t_plain=0 t_shim=0 t_templates=0
r=0
while [ $r -lt "$rounds" ]; do
	rm -f "$work/trace" "$work/trace-t"
	t_plain=$(add "$t_plain" "$(run plain)")
	t_shim=$(add "$t_shim" "$(run shim)")
	t_templates=$(add "$t_templates" "$(run templates)")
	r=$((r + 1))
done
echo "GNU make -j2, $rules rules of /bin/true, $rounds rounds:"
printf '  %-24s %8.2f s  %6.3fx\n' "plain (glibc posix_spawn)" "$t_plain" 1
printf '  %-24s %8.2f s  %6.3fx\n' "LD_PRELOAD shim" "$t_shim" "$(awk -v a="$t_plain" -v b="$t_shim" 'BEGIN { print a / b }')"
printf '  %-24s %8.2f s  %6.3fx\n' "shim, template cache" "$t_templates" "$(awk -v a="$t_plain" -v b="$t_templates" 'BEGIN { print a / b }')"
echo "  spawns of the last round, shim: $(sed 's/^[^:]*: //' "$work/trace" 2>/dev/null | sort | uniq -c | tr '\n' ' ')"
echo "  spawns of the last round, cache: $(sed 's/^[^:]*: //' "$work/trace-t" 2>/dev/null | sort | uniq -c | tr '\n' ' ')"
