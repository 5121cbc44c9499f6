#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# make run's sandbox demo as a test: a tool started through
# pidspawn_sandbox() and the builder's limits tries each forbidden thing;
# every restriction must hold (one result each), and the exit status that
# comes back through the pidfd must say so.  TAP.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

out=$("$here/../demo/pidspawn-sandbox-demo" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
printf '%s\n' "$out" | grep '^  tool: ' > /tmp/sandbox-test.$$
while IFS= read -r line; do
	what=$(printf '%s' "$line" | sed 's/^  tool: //; s/  *as expected.*//; s/  *NOT CONFINED.*//')
	case "$line" in
	*"as expected"*) tap 0 "$what" ;;
	*) tap 1 "$what" ;;
	esac
done < /tmp/sandbox-test.$$
tap "$([ "$(wc -l < /tmp/sandbox-test.$$)" -eq 9 ] && echo 0 || echo 1)" "the tool made its 9 attempts"
rm -f /tmp/sandbox-test.$$
tap "$rc" "the demo's exit status is 0 (the tool's through the pidfd, and no escaped file)"
echo "1..$n"
exit "$failed"
