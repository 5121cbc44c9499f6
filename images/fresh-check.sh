#!/bin/bash
# The README's promise on a brand-new machine, in a clean room: a minimal
# Debian bookworm root (debootstrap --variant=minbase, plus make, which the
# user needs to type the commands), this machine's apt configuration, and a
# fresh git clone of HEAD (committed files only). Inside it, as root, with
# empty caches, the README's two commands: `make run`, then `make check`.
# Prints the wall time of each phase and make check's last line; exits
# non-zero if either command fails. About 25 min or more on 2 cores; not CI.
#
#   fresh-check.sh
#
# Environment: FRESH_DIR (where the work folder goes, default /var/tmp),
# FRESH_REPO (where in the root the clone goes, default /root/pidspawn: in
# root's home, as root would clone it), FRESH_KEEP=1 (keep the root
# afterwards; the logs and make check's results are always kept).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")

say() { printf 'fresh-check: %s\n' "$*" >&2; }
die() { printf 'fresh-check: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (debootstrap, chroot, mounts)"
for c in debootstrap git chroot unshare findmnt; do
	command -v "$c" >/dev/null || die "$c missing on this machine"
done

# A private mount namespace: the binds below are invisible to the rest of
# the machine and vanish with this process whatever happens. The trap
# unmounts them anyway, before the root is removed.
if [ -z "${PIDSPAWN_FRESH_NS:-}" ]; then
	export PIDSPAWN_FRESH_NS=1
	exec unshare --mount --propagation private "$here/fresh-check.sh" "$@"
fi

. "$here/mirror.sh"
url=$(mirror | head -n1)
[ -n "$url" ] || die "no bookworm mirror in the apt configuration"

work=$(mktemp -d "${FRESH_DIR:-/var/tmp}/pidspawn-fresh.XXXXXX")
work=$(cd "$work" && pwd -P)
root=$work/root
mkdir "$root"
repo=${FRESH_REPO:-/root/pidspawn}
case "$repo" in /?*) ;; *) die "FRESH_REPO must be an absolute path" ;; esac

mounts_under_root() {
	findmnt -rn -o TARGET | awk -v r="$root" 'index($0, r "/") == 1' | sort -r
}

cleanup() {
	local rc=$? pid m left
	set +e
	trap - EXIT INT TERM
	# Whatever still runs inside the root (an interrupted build or guest).
	for pid in /proc/[0-9]*; do
		if [ "$(readlink "$pid/root" 2>/dev/null)" = "$root" ]; then
			kill "${pid#/proc/}" 2>/dev/null
		fi
	done
	sleep 1
	for m in $(mounts_under_root); do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
	done
	[ -d "$root$repo/build/default/results" ] &&
		cp -a "$root$repo/build/default/results" "$work/results"
	left=$(mounts_under_root)
	if [ -n "$left" ]; then
		say "still mounted, root left in place: $left"
	elif [ "${FRESH_KEEP:-0}" = 1 ]; then
		say "root kept in $root"
	else
		rm -rf --one-file-system "$root"
	fi
	say "logs in $work"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fmt() { printf '%dm %02ds' $(($1 / 60)) $(($1 % 60)); }

# Each output line with the minutes:seconds since the phase began, to the
# terminal and to the phase's log.
stamp() {
	local start=$SECONDS line t
	while IFS= read -r line || [ -n "$line" ]; do
		t=$((SECONDS - start))
		printf '[%02d:%02d] %s\n' $((t / 60)) $((t % 60)) "$line"
	done | tee "$1"
}

# Phase 1: the root.
say "work folder $work"
say "phase 1: debootstrap --variant=minbase --include=make bookworm from $url"
t0=$SECONDS
debootstrap --variant=minbase --include=make bookworm "$root" "$url" \
	> "$work/debootstrap.log" 2>&1 ||
	{ tail -20 "$work/debootstrap.log" >&2; die "debootstrap failed"; }
t_boot=$((SECONDS - t0))
say "phase 1: debootstrap took $(fmt $t_boot)"

# This machine's apt configuration and name resolution.
rm -f "$root/etc/apt/sources.list"
cp -a /etc/apt/. "$root/etc/apt/"
cp -L --remove-destination /etc/resolv.conf "$root/etc/resolv.conf"
cp -L --remove-destination /etc/hosts "$root/etc/hosts"

# The repository: a fresh clone of HEAD, so only committed files count.
head=$(git -C "$top" rev-parse HEAD)
mkdir -p "$(dirname "$root$repo")"
git clone -q --no-hardlinks "$top" "$root$repo"
git -C "$root$repo" checkout -q --detach "$head"
say "repository: fresh git clone of HEAD $(git -C "$top" log -1 --format='%h %s' "$head") in $repo"
say "  only committed files are tested; uncommitted changes in $top are not"
dirty=$(git -C "$top" status --porcelain --untracked-files=no | wc -l)
[ "$dirty" = 0 ] || say "  ($dirty tracked files there differ from HEAD and are left out)"

mkdir -p "$root/proc" "$root/sys" "$root/dev"
mount --rbind /proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"

# As root on a new machine: a clean environment, empty caches in the root.
cache=/root/.cache
inside() {
	chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		PIDSPAWN_CACHE=$cache/pidspawn CCACHE_DIR=$cache/ccache \
		/bin/sh -c "cd '$repo' && $1"
}
[ ! -e "$root$cache" ] || die "$cache exists in the new root"
say "caches: PIDSPAWN_CACHE=$cache/pidspawn CCACHE_DIR=$cache/ccache in the root, empty"

# Phase 2: make run (package install, kernel build, image, demo).
say "phase 2: make run (installs packages, builds kernel + image + userspace, boots the guest)"
t0=$SECONDS
set +e
inside 'make run' 2>&1 | stamp "$work/make-run.log"
rc_run=${PIPESTATUS[0]}
set -e
t_run=$((SECONDS - t0))
say "phase 2: make run exited $rc_run after $(fmt $t_run)"

# Phase 3: make check.
t_check='' rc_check='' last=''
if [ "$rc_run" = 0 ]; then
	say "phase 3: make check"
	t0=$SECONDS
	set +e
	inside 'make check' 2>&1 | stamp "$work/make-check.log"
	rc_check=${PIPESTATUS[0]}
	set -e
	t_check=$((SECONDS - t0))
	# The summary line (on failure make itself prints one more line).
	last=$(sed 's/^\[[0-9:]*\] //' "$work/make-check.log" |
		grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' | tail -n1)
	[ -n "$last" ] || last="(no summary) $(tail -n1 "$work/make-check.log")"
	say "phase 3: make check exited $rc_check after $(fmt $t_check)"
fi

say "summary (HEAD $(git -C "$top" rev-parse --short "$head"), $(nproc) cores):"
say "  debootstrap minbase:                        $(fmt $t_boot)"
say "  make run (packages, kernel, image, demo):   $(fmt $t_run) (exit $rc_run)"
if [ -n "$t_check" ]; then
	say "  make check:                                 $(fmt $t_check) (exit $rc_check)"
	say "  make check's summary line: $last"
	[ "$rc_check" = 0 ] || say "  failures: grep -r 'not ok' $work/results"
else
	say "  make check: not run, make run failed (log: $work/make-run.log)"
fi
if [ "$rc_run" != 0 ] || [ "$rc_check" != 0 ]; then
	die "FAILED"
fi
say "PASSED: make run and make check work on a brand-new Debian 12 root"
