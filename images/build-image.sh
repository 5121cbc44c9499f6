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

# The mirror comes from this machine's apt configuration: the first
# deb822 stanza or sources.list line that serves bookworm itself.
mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = ""; FS = "\n" }
		     {
			uri = ""; ok = 0
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^URIs:/) { split($i, u, " "); uri = u[2] }
				if ($i ~ /^Suites:/ && $i ~ /[ \t]bookworm([ \t]|$)/) ok = 1
			}
			if (ok && uri != "") { print uri; exit }
		     }' "$f"
	done
	if [ -f /etc/apt/sources.list ]; then
		awk '$1 == "deb" && $3 == "bookworm" { print $2 }' /etc/apt/sources.list
	fi
}
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
