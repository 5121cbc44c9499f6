#!/bin/bash
# make check, after the kernel, the image and userspace are built:
# host checks and host suites, then the guest suites in one boot, then the
# summary. Exit status: nonzero if anything failed.
#   check.sh TOP KBUILD TREE IMAGE BUILD [run-guest options]
set -u
top=$1 kbuild=$2 tree=$3 image=$4 build=$5
shift 5
results=$build/results
share=$build/share
rm -rf "$results" "$share" "$build/host-work"
mkdir -p "$results" "$share"
: > "$results/suites.order"

# Everything the tests run, host or guest, is staged in one folder.
cp -a "$kbuild/kselftest_install" "$share/kselftest"
make -s -C "$top/userspace" stage DEST="$share/userspace" || exit 1
cp "$top/selftests/run-suites.sh" "$share/"

# kselftest-list.txt names collection:program. Our own pidfd_config,
# pidfd_template and pidfd_sandbox tests live in the pidfd collection but
# are counted as suites of their own, so the stock suites stay comparable with and
# without the series.
# KCONFIG=off (make check-config-off): the series' options are off, so
# its own kselftests are left out, and the userspace suites are those
# marked "off" in tests.list; the host's are the default check's.
# KSERIES=N (make check KSERIES=1): the first N series only. The
# series' kselftests are those its tree has; the userspace suites are
# those marked "core" in tests.list, which need the core alone; no host
# checks (uapi/ is the whole series') and no host suites (the default
# check's).
off=0
[ "${KCONFIG:-default}" = off ] && off=1
partial=0
[ -n "${KSERIES:-}" ] && partial=1
awk -F: -v off=$off '
	$1 == "core" && $2 != "close_range_test" { next }
	off && $1 == "pidfd" && $2 ~ /^pidfd_(config|template|sandbox)/ { next }
	{
		suite = $1
		if ($1 == "pidfd" && $2 ~ /^pidfd_config/) suite = "pidfd_config"
		if ($1 == "pidfd" && $2 ~ /^pidfd_template/) suite = "pidfd_template"
		if ($1 == "pidfd" && $2 ~ /^pidfd_sandbox/) suite = "pidfd_sandbox"
		if ($1 == "core") suite = "close_range"
		printf "%s kselftest/%s ./%s\n", suite, $1, $2
	}' "$share/kselftest/kselftest-list.txt" > "$share/guest.suites"
guest=guest host=host
[ $off = 1 ] && guest=off host=none
[ $partial = 1 ] && guest=core host=none
awk -v w=$guest '$2 == w { $2 = ""; sub(/^[^ ]+  /, $1 " userspace "); print }' \
	"$top/userspace/tests.list" >> "$share/guest.suites"
awk -v w=$host '$2 == w { $2 = ""; sub(/^[^ ]+  /, $1 " userspace "); print }' \
	"$top/userspace/tests.list" > "$build/host.suites"

if [ $off = 0 ] && [ $partial = 0 ]; then
	echo "check: host checks" >&2
	"$top/selftests/host-checks.sh" "$top" "$kbuild" "$tree" "$results"
fi
echo "check: host suites" >&2
awk '{ print $1 }' "$build/host.suites" | awk '!seen[$0]++' >> "$results/suites.order"
"$top/selftests/run-suites.sh" "$share" "$build/host.suites" "$results" "$build/host-work"

echo "check: booting the guest for $(awk '{print $1}' "$share/guest.suites" | sort -u | paste -sd' ' -)" >&2
# pidfd_test's recycled-pid test forks until pids wrap: a small pid space
# keeps that to seconds on TCG, and to minutes on the debug kernel.
cat > "$share/job.sh" <<JOB
echo 1200 > /proc/sys/kernel/pid_max
PIDSPAWN_GUEST=1 PIDSPAWN_TEST_TIMEOUT=${PIDSPAWN_TEST_TIMEOUT:-900} \
	sh /mnt/host/run-suites.sh /mnt/host /mnt/host/guest.suites /mnt/host/results /tmp/pidspawn-tests
JOB
"$top/images/run-guest.sh" --kernel "$kbuild/arch/x86/boot/bzImage" --image "$image" \
	--tap "$results/guest" "$@" "$share"
awk '{ print $1 }' "$share/guest.suites" | awk '!seen[$0]++' >> "$results/suites.order"
cp -a "$share/results/." "$results/" 2>/dev/null
cp "$share/serial.log" "$results/serial.log" 2>/dev/null
cp "$share/dmesg.txt" "$results/dmesg.txt" 2>/dev/null
echo guest >> "$results/suites.order"

echo "check: TAP output, the serial log and the guest dmesg are in $results" >&2
"$top/selftests/summarize.sh" "$results"
