# SPDX-License-Identifier: LGPL-2.1-or-later
# TAP for the shell tests: sourced, it gives tap STATUS DESCRIPTION, which
# numbers each result and remembers a failure in $failed.
n=0 failed=0

tap() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		failed=1
	fi
}
