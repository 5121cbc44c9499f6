#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, real clients that start their children with posix_spawn():
# ninja -j2 over RULES rules (ninja starts each command with posix_spawn),
# fish running a script of RULES external commands (fish starts external
# commands with posix_spawn), and a Rust program starting RULES children
# with std::process::Command (posix_spawnp; rust-spawn, built on the host
# when rustc is there). Each runs plain (glibc) and under the LD_PRELOAD
# shim, taking turns in ROUNDS rounds; prints each client's total time per
# variant, the ratio to plain, and how a traced round under the shim
# spawned (every spawn should say native).
#   client-bench.sh [RULES] [ROUNDS]
here=$(cd "$(dirname "$0")" && pwd)
shim=$here/../lib/libpidspawn-preload.so
rules=${1:-300} rounds=${2:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# /bin/true makes no output: every run of ninja builds every rule.
{
	printf 'rule t\n  command = /bin/true $out\n'
	i=1
	while [ $i -le "$rules" ]; do printf 'build o%d: t\n' $i; i=$((i + 1)); done
} > "$work/build.ninja"
{
	i=1
	while [ $i -le "$rules" ]; do printf '/bin/true %d\n' $i; i=$((i + 1)); done
} > "$work/script.fish"

clients=
command -v ninja >/dev/null && clients="$clients ninja"
command -v fish >/dev/null && clients="$clients fish"
[ -x "$here/rust-spawn" ] && clients="$clients rust"
for c in ninja fish rust; do
	case " $clients " in
	*" $c "*) ;;
	*) echo "client-bench: $c not here, skipped" ;;
	esac
done

client() {	# name
	case $1 in
	ninja) ninja -C "$work" -j2 ;;
	fish) fish --no-config "$work/script.fish" ;;
	rust) "$here/rust-spawn" "$rules" ;;
	esac
}
now() { date +%s.%N; }
run() {	# client variant [trace file]: prints the seconds one run took
	start=$(now)
	(
		unset LD_PRELOAD PIDSPAWN_TRACE
		if [ "$2" = shim ]; then
			LD_PRELOAD=$shim
			PIDSPAWN_TRACE=${3:-}
			export LD_PRELOAD PIDSPAWN_TRACE
		fi
		client "$1" >/dev/null
	) || { echo "client-bench: $1 failed ($2)" >&2; exit 1; }
	awk -v a="$(now)" -v b="$start" 'BEGIN { printf "%.6f\n", a - b }'
}
add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f\n", a + b }'; }

# Untimed first: the first run reads the client from disk.
for c in $clients; do
	eval "t_${c}_plain=0 t_${c}_shim=0"
	run "$c" plain >/dev/null
	run "$c" shim >/dev/null
done
r=0
while [ $r -lt "$rounds" ]; do
	for c in $clients; do
		for v in plain shim; do
			eval "t_${c}_$v=\$(add \"\$t_${c}_$v\" \"\$(run $c $v)\")"
		done
	done
	r=$((r + 1))
done

echo "clients, $rules children each, $rounds rounds; ratio: plain's time over the shim's"
for c in $clients; do
	rm -f "$work/trace"
	run "$c" shim "$work/trace" >/dev/null
	eval "p=\$t_${c}_plain s=\$t_${c}_shim"
	printf '  %-6s plain %9.4f s  shim %9.4f s  %6.3fx   traced: %s\n' "$c" "$p" "$s" \
		"$(awk -v a="$p" -v b="$s" 'BEGIN { print a / b }')" \
		"$(sed 's/: [-0-9]*$//; s/^.*: //' "$work/trace" 2>/dev/null |
		   sort | uniq -c | tr -s ' \n' ' ')"
done
