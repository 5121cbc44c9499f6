#!/bin/bash
# Install the Debian packages the build, the guest and the tests need.
# Quiet and quick when everything is present; apt-get update only when
# something is missing.
set -euo pipefail

packages=(
	# kernel build (headers_install, and so the kselftests, needs rsync)
	linux-source-6.12 gcc make flex bison bc libelf-dev libssl-dev cpio
	xz-utils git ccache perl python3 rsync
	# kselftests (clone3 links libcap) and the userspace library
	libc6-dev libcap-dev pkg-config
	# the Python module (userspace/python) and its host suites; pip
	# install of it with Debian's setuptools (a host check)
	python3-dev libpython3.11-testsuite python3-pip python3-setuptools
	python3-wheel
	# guest
	qemu-system-x86 debootstrap e2fsprogs
	# docs: render the man pages; make bench: plots
	man-db groff-base gnuplot-nox
)

missing=()
for p in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages, rerun as root: ${missing[*]}" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
