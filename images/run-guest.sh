#!/bin/bash
# Boot the pidspawn kernel on the Debian image in QEMU and run one job.
#
#   run-guest.sh [options] SHARE
#
# SHARE is a host directory exported to the guest over 9p at /mnt/host; the
# guest runs SHARE/job.sh there as its init job and writes the exit status
# to SHARE/job.status. The serial log is kept. The run fails on a timeout,
# a guest panic, a missing status, or any kernel BUG/WARNING/Oops, KASAN,
# lockdep or kmemleak report in the log, even when the job itself passed.
#
# Options:
#   --kernel FILE     bzImage (required)
#   --image FILE      ext4 root image (required; used read-only: -snapshot)
#   --log FILE        serial log (default SHARE/serial.log)
#   --timeout SEC     wall-clock limit (default 1800)
#   --interactive     a shell on the terminal instead of job.sh
#   --tap DIR         also write the run's own results as TAP in DIR/run.tap
#   --kvm             use KVM (nested KVM does not work on our machines)
#   --icount          count instead of time: single-threaded TCG under
#                     -icount shift=0,sleep=off, so the guest's clock
#                     advances 1 ns per guest instruction (make bench
#                     BENCH_CLOCK=icount); steady to ~1%, but it models no
#                     cache, TLB or memory latency and no host load
#   --smp N           guest CPUs (default 2)
set -euo pipefail

kernel= image= log= tap= timeout=1800 interactive=0 accel="tcg,thread=multi"
smp=2 icount=()
cpu=${PIDSPAWN_QEMU_CPU:-max}
while [ $# -gt 1 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--image) image=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--tap) tap=$2; shift 2 ;;
	--interactive) interactive=1; shift ;;
	--kvm) accel=kvm; cpu=host; shift ;;
	--icount) accel="tcg,thread=single"; icount=(-icount shift=0,sleep=off); shift ;;
	--smp) smp=$2; shift 2 ;;
	*) break ;;
	esac
done
share=${1:?usage: run-guest.sh [options] SHARE}
share=$(cd "$share" && pwd)
log=${log:-$share/serial.log}
[ -f "$kernel" ] || { echo "run-guest: no kernel $kernel" >&2; exit 2; }
[ -f "$image" ] || { echo "run-guest: no image $image" >&2; exit 2; }

rm -f "$share/job.status" "$share/dmesg.txt" "$share/interactive"
[ "$interactive" = 1 ] && touch "$share/interactive"

# no5lvl: TCG's "max" CPU has LA57, and stock 6.12 clears the LA57 feature
# bit for a moment in identify_cpu(); an interrupt in that window makes
# KASAN report the 5-level direct map as a wild access. A 2 GiB guest
# gains nothing from 5-level paging.
# loglevel=5: WARN() and lockdep print at KERN_WARNING; a quieter console
# would hide them from the serial log the run is judged on.
qemu=(qemu-system-x86_64 -machine q35 -accel "$accel" "${icount[@]}" -cpu "$cpu" -smp "$smp" -m 2G
	-nographic -no-reboot
	-kernel "$kernel"
	-append "console=ttyS0 root=/dev/vda rw init=/sbin/pidspawn-init panic=-1 no5lvl loglevel=5"
	-drive "file=$image,format=raw,if=virtio,snapshot=on"
	-virtfs "local,path=$share,mount_tag=host,security_model=none,id=host"
	-device virtio-rng-pci)

if [ "$interactive" = 1 ]; then
	"${qemu[@]}" -serial mon:stdio
	rm -f "$share/interactive"
	exit 0
fi

start=$(date +%s)
set +e
timeout --foreground -k 10 "$timeout" "${qemu[@]}" -serial "file:$log" -monitor none </dev/null >/dev/null 2>"$share/qemu.err"
qemu_rc=$?
set -e
echo "run-guest: guest ran $(( $(date +%s) - start ))s" >&2

fail=0 booted=0 clean=0
if [ "$qemu_rc" = 124 ]; then
	echo "run-guest: FAIL: timeout after ${timeout}s (serial log: $log)" >&2
	fail=1
elif [ "$qemu_rc" != 0 ]; then
	echo "run-guest: FAIL: qemu exited with $qemu_rc: $(head -c 500 "$share/qemu.err")" >&2
	fail=1
fi

# Kernel reports that fail the run whatever the job said.
bad='Kernel panic|BUG:|WARNING:|Oops|KASAN|UBSAN|possible recursive locking|possible circular locking|inconsistent lock state|suspicious RCU usage|unreferenced object|new suspected memory leaks|general protection fault|list_add corruption|list_del corruption|refcount_t:|ODEBUG:|KFENCE:'
# The serial log holds what the guest printed up to a crash; the guest's
# dmesg, saved at the end, holds the rest whatever its level.
logs=("$log")
[ -f "$share/dmesg.txt" ] && logs+=("$share/dmesg.txt")
if grep -aEn "$bad" "${logs[@]}" > "$share/kernel-reports.txt"; then
	echo "run-guest: FAIL: the kernel log has reports (serial log: $log):" >&2
	head -20 "$share/kernel-reports.txt" >&2
	fail=1
fi

[ -s "$share/kernel-reports.txt" ] || clean=1
if [ -f "$share/job.status" ]; then
	booted=1
else
	echo "run-guest: FAIL: the guest did not report a job status (serial log: $log)" >&2
	tail -20 "$log" >&2
	fail=1
fi
if [ -n "$tap" ]; then
	mkdir -p "$tap"
	{
		[ "$booted" = 1 ] && echo "ok 1 guest booted, ran its job and reported" ||
			echo "not ok 1 guest booted, ran its job and reported"
		[ "$clean" = 1 ] && echo "ok 2 kernel log free of panic/BUG/WARNING/Oops/KASAN/lockdep/kmemleak reports" ||
			{ echo "not ok 2 kernel log free of panic/BUG/WARNING/Oops/KASAN/lockdep/kmemleak reports"
			  head -20 "$share/kernel-reports.txt" | sed 's/^/# /'; }
	} > "$tap/run.tap"
	echo 0 > "$tap/run.rc"
fi
[ "$fail" = 0 ] || exit 1
exit "$(cat "$share/job.status")"
