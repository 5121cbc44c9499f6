#!/bin/sh
# Run test programs, host or guest: every line of SUITES ("suite directory
# command...") runs from a private copy of BASE/directory, with a timeout;
# its output goes to RESULTS/<suite>/<name>.tap, its exit status to .rc.
#   run-suites.sh BASE SUITES RESULTS WORK
set -u
base=$1 suites=$2 results=$3 work=$4
timeout=${PIDSPAWN_TEST_TIMEOUT:-900}

note() {
	echo "pidspawn: $*" >&2
	# In the guest, also mark the kernel log so reports show which test ran.
	[ -w /dev/kmsg ] && [ "${PIDSPAWN_GUEST:-}" ] && echo "pidspawn: $*" > /dev/kmsg
	return 0
}

while read -r suite dir cmd; do
	case "$suite" in ''|'#'*) continue ;; esac
	name=$(printf '%s' "${cmd#./}" | tr -c 'A-Za-z0-9_.-' '_')
	mkdir -p "$results/$suite"
	if [ ! -d "$work/$dir" ]; then
		mkdir -p "$work/$dir"
		cp -a "$base/$dir/." "$work/$dir/"
	fi
	note "$suite: $cmd"
	(cd "$work/$dir" && timeout -k 10 "$timeout" sh -c "$cmd") \
		> "$results/$suite/$name.tap" 2>&1 < /dev/null
	echo $? > "$results/$suite/$name.rc"
done < "$suites"
