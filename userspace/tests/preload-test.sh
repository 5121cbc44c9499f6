#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The LD_PRELOAD shim under real Debian programs: GNU make running
# recipes, python3's os.posix_spawn and subprocess (close_fds=False uses
# posix_spawn).  Each runs without and with the shim and must print the
# same; PIDSPAWN_TRACE proves the shim did the spawning.  TAP.
# PIDSPAWN_EXPECT=native: the trace must show native spawns (skipped where
# the kernel has no pidfd_config()).
here=$(cd "$(dirname "$0")" && pwd)
shim=$here/../lib/libpidspawn-preload.so
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$here/tap.sh"

# compare NAME STATUS CMD...: CMD exits with STATUS and prints the same
# without and with the shim, and the shim traced some spawns.
compare() {
	name=$1 want=$2
	shift 2
	rm -f "$work/trace"
	(cd "$work" && env -u LD_PRELOAD "$@") > "$work/plain" 2>&1
	echo "exit $?" >> "$work/plain"
	(cd "$work" && LD_PRELOAD=$shim PIDSPAWN_TRACE=$work/trace "$@") > "$work/shim" 2>&1
	echo "exit $?" >> "$work/shim"
	cmp -s "$work/plain" "$work/shim"
	rc=$?
	[ $rc = 0 ] || diff -u "$work/plain" "$work/shim" | sed 's/^/# /'
	tap $rc "$name: same output with and without the shim"
	tail -n 1 "$work/plain" | grep -qx "exit $want"
	tap $? "$name: exit status $want"
	lines=$(cat "$work/trace" 2>/dev/null | wc -l)
	sed 's/^/# trace: /' "$work/trace" 2>/dev/null | head -5
	test "$lines" -gt 0
	tap $? "$name: the shim did the spawning ($lines traced)"
	if [ "${PIDSPAWN_EXPECT:-}" != native ]; then
		:
	elif grep -q ': fallback backend: ' "$work/trace" 2>/dev/null; then
		n=$((n + 1))
		echo "ok $n $name: the shim spawned natively # SKIP pidfd_config() missing"
	else
		grep -q ': native: ' "$work/trace" 2>/dev/null
		tap $? "$name: the shim spawned natively"
	fi
}

out=$(LD_PRELOAD=$shim "$here/preload-probe")
echo "$out" | sed 's/^/# /'
case "$out" in
*libpidspawn-preload.so*"posix_spawn: Success, status 0"*) rc=0 ;;
*) rc=1 ;;
esac
tap $rc "posix_spawn@GLIBC_2.15 of a glibc program binds to the shim"
out=$("$here/preload-probe")
case "$out" in *libc.so*) rc=0 ;; *) rc=1 ;; esac
tap $rc "without the shim the same program binds to glibc"

cat > "$work/Makefile" <<'MK'
all: one two three four
one:
	@echo one; echo "$$MAKELEVEL"
two: one
	@grep -E '^SigBlk' /proc/self/status; ls /proc/self/fd
three:
	-@exit 3
four: two
	@printf '%s\n' 'four runs' && sh -c 'exit 0'
fail:
	@echo before; exit 2
MK
# The shim's children get LD_PRELOAD without the shim, the rest of it
# kept; PIDSPAWN_PRELOAD_CHILDREN=1 keeps the shim (lib/preload.c).
libc=$(awk '$6 ~ /\/libc\.so\.6$/ { print $6; exit }' /proc/$$/maps)
child_preload() {	# LD_PRELOAD value [VAR=value...]: the child's LD_PRELOAD
	pre=$1
	shift
	env "$@" LD_PRELOAD="$pre" "$here/preload-probe" /usr/bin/env |
		sed -n 's/^LD_PRELOAD=/=/p'
}
test "$(child_preload "$shim")" = ""
tap $? "the shim is not preloaded into the children it spawns"
test "$(child_preload "$shim:$libc")" = "=$libc" &&
	test "$(child_preload "$shim $libc")" = "=$libc"
tap $? "the rest of LD_PRELOAD stays the children's"
test "$(child_preload "$shim" PIDSPAWN_PRELOAD_CHILDREN=1)" = "=$shim"
tap $? "PIDSPAWN_PRELOAD_CHILDREN=1 keeps the shim in the children"

if [ -x /usr/bin/make ]; then
	compare "make" 0 /usr/bin/make -f Makefile
	compare "make -k, a failing recipe" 2 /usr/bin/make -k -f Makefile fail all
else
	echo "ok $((n += 1)) make # SKIP no make"
fi
# Debian's python3 (the one on PATH may be another build).
if [ -x /usr/bin/python3 ]; then
	compare "python3 os.posix_spawn and subprocess" 0 /usr/bin/python3 "$here/preload-test.py" "$work"
else
	echo "ok $((n += 1)) python3 # SKIP no python3"
fi
exit $failed
