# shellcheck shell=bash
# Sourced by images/build-image.sh and images/fresh-check.sh.
# mirror: print the Debian mirror of this machine's apt configuration, read
# at run time (no host name is ever written into the repository): the first
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
