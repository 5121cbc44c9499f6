#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Real strace -f follows children started through pidfd_config(): the
# demo (the builder directly) and python3's os.posix_spawn through the
# LD_PRELOAD shim (libpidspawn's posix_spawn, native).  Each child must
# show its execve() and its end as a posix_spawn() child does.  TAP.
here=$(cd "$(dirname "$0")" && pwd)
shim=$here/../lib/libpidspawn-preload.so
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$here/tap.sh"

if ! command -v strace >/dev/null; then
	echo "1..0 # SKIP strace is not installed"
	exit 0
fi

# The pids of a log other than the traced program's own (its first line).
children() {
	main=$(awk 'NR == 1 { print $1 }' "$1")
	awk -v main="$main" '$1 != main { print $1 }' "$1" | sort -un
}

# check LOG NAME: the children that executed: each shows execve() = 0 and
# an exit; prints their execve lines as comments. strace pads a short
# call's result to a column ("execve(...)     = 0") unless another
# process' line split it ("<... execve resumed>) = 0").
check_execs() {
	log=$1 name=$2 execs=0
	for pid in $(children "$log"); do
		# One line, or split by another process' line between.
		grep -E "^$pid +(execve(at)?\(.*\)|<\.\.\. execve(at)? resumed>.*) += 0$" \
			"$log" > /dev/null || continue
		grep -E "^$pid +(execve(at)?\(|<\.\.\. execve(at)? resumed>)" "$log" |
			sed 's/^/# /'
		execs=$((execs + 1))
		grep -qE "^$pid +\+\+\+ exited with [0-9]+ \+\+\+$" "$log"
		tap $? "$name: child $pid's exit is traced"
	done
	test "$execs" -gt 0
	tap $? "$name: strace -f shows $execs child execve() = 0"
}

# The demo: one child that runs, one whose start fails in a file action
# (before its execve(): the child is seen to end with no execve(), and
# with status 127, as a posix_spawn() child whose setup failed exits).
strace -f -q -o "$work/demo.log" "$here/../demo/pidspawn-demo" > "$work/demo.out" 2>&1
tap $? "demo: exits 0 under strace -f"
check_execs "$work/demo.log" demo
killed=0
for pid in $(children "$work/demo.log"); do
	if grep -qE "^$pid +\+\+\+ exited with 127 \+\+\+$" "$work/demo.log"; then
		killed=$((killed + 1))
		grep -qE "^$pid +execve" "$work/demo.log"
		test $? = 1
		tap $? "demo: the child whose start failed made no execve()"
	fi
done
test "$killed" = 1
tap $? "demo: one child whose start failed, seen to exit with 127"
if [ "$failed" != 0 ]; then
	sed 's/^/# log: /' "$work/demo.log" | tail -40
fi

# libpidspawn's posix_spawn, through the shim, native.
strace -f -q -o "$work/py.log" -E LD_PRELOAD="$shim" -E PIDSPAWN_TRACE="$work/trace" \
	python3 -c 'import os; pid = os.posix_spawn("/bin/true", ["true"], {}); print(os.waitpid(pid, 0)[1])' \
	> "$work/py.out" 2>&1
rc=$?
test $rc = 0 && grep -qx 0 "$work/py.out"
tap $? "posix_spawn: /bin/true ran and exited 0 under strace -f"
grep -q ': native: ' "$work/trace" 2>/dev/null
tap $? "posix_spawn: the shim spawned natively"
check_execs "$work/py.log" posix_spawn
if [ "$failed" != 0 ]; then
	sed 's/^/# out: /' "$work/py.out"
	sed 's/^/# trace: /' "$work/trace" 2>/dev/null
	grep -v "^$(awk 'NR == 1 { print $1 }' "$work/py.log") " "$work/py.log" |
		sed 's/^/# log: /' | tail -40
fi

echo "1..$n"
exit $failed
