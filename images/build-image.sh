#!/bin/bash
# Build the guest root: Debian bookworm minbase from debootstrap, plus
# images/packages and images/guest-init, as an ext4 image made with
# mkfs.ext4 -d (no loop mounts). Cached by a hash of this recipe.
#   build-image.sh        print the image path, building it if needed
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${PIDSPAWN_CACHE:-$HOME/.cache/pidspawn}
recipe=$(cat "$here/build-image.sh" "$here/packages" "$here/guest-init" | sha256sum | cut -c1-16)
image=$cache/images/rootfs-$recipe.ext4

if [ -f "$image" ]; then
	echo "$image"
	exit 0
fi

# The mirror comes from this machine's apt configuration.
. "$here/mirror.sh"
url=$(mirror | head -n1)
[ -n "$url" ] || { echo "images: no bookworm mirror in the apt configuration" >&2; exit 1; }

work=$cache/images/root-$recipe
# Leftovers of interrupted builds.
rm -rf "$cache"/images/root-*
mkdir -p "$work"
echo "images: debootstrap bookworm from $url" >&2
include=$(grep -v '^#' "$here/packages" | paste -sd, -)
debootstrap --variant=minbase --include="$include" bookworm "$work" "$url" \
	> "$cache/images/debootstrap.log" 2>&1 ||
	{ tail -20 "$cache/images/debootstrap.log" >&2; exit 1; }
install -m 0755 "$here/guest-init" "$work/sbin/pidspawn-init"
echo pidspawn-guest > "$work/etc/hostname"
rm -rf "$work/var/cache/apt/archives"/*.deb "$work/var/lib/apt/lists"/*
mkfs.ext4 -q -F -L pidspawn -d "$work" "$image.tmp" 2G >&2
mv "$image.tmp" "$image"
rm -rf "$work"
# Drop images built from older recipes.
find "$cache/images" -maxdepth 1 -name 'rootfs-*.ext4' ! -name "rootfs-$recipe.ext4" -delete
echo "$image"
