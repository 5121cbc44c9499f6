#!/bin/bash
# Host-side checks, as TAP programs in RESULTS/<suite>/:
#   uapi:        uapi/ is byte-identical to what the series installs, and
#                the syscall numbers userspace assumes match the kernel's
#   checkpatch:  every patch passes scripts/checkpatch.pl --strict (but
#                for ENOSYS, which seccomp's semantics need)
#   docs:        every man page in docs/ renders without groff warnings
#   python-install: the Python package installed by make install and by
#                pip (Debian's setuptools, no index) imports
#   host-checks.sh TOP KBUILD TREE RESULTS
set -u
top=$1 kbuild=$2 tree=$3 results=$4

tap_begin() { suite=$1 name=$2 n=0; mkdir -p "$results/$suite"; out=$results/$suite/$name.tap; : > "$out"; echo "$suite" >> "$results/suites.order"; }
tap() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n $2" >> "$out"; else echo "not ok $n $2" >> "$out"; fi; }
tap_end() { echo 0 > "${out%.tap}.rc"; }

tap_begin uapi headers
for h in $(cd "$top/uapi" && find . -name '*.h' | sort); do
	h=${h#./}
	cmp -s "$top/uapi/$h" "$kbuild/usr/include/$h"
	rc=$?
	[ "$rc" = 0 ] || diff -u "$top/uapi/$h" "$kbuild/usr/include/$h" | head -20 | sed 's/^/# /' >> "$out"
	tap $rc "uapi/$h is identical to the header the series installs"
done
# Syscall numbers that the userspace library defines for older headers.
for nr in $(grep -rhoE '#define __NR_[a-z_0-9]+ [0-9]+' "$top/userspace" 2>/dev/null | awk '{print $2 "=" $3}' | sort -u); do
	name=${nr%=*} val=${nr#*=}
	grep -qE "^#define $name $val\$" "$kbuild/usr/include/asm/unistd_64.h"
	tap $? "$name is $val in the series' asm/unistd_64.h"
done
tap_end

tap_begin checkpatch series
shopt -s nullglob
for p in "$top"/kernel-patches/[1-9]-*/0*.patch; do
	case "$p" in */0000-*) continue ;; esac
	# ENOSYS is what seccomp documents for SECCOMP_RET_TRACE without a
	# tracer, and what glibc falls back from; checkpatch's ENOSYS warning
	# admits false positives, and these are reviewed in the cover letter.
	# FILE_PATH_CHANGES asks whether MAINTAINERS covers a new file; the
	# check below answers it for every file the series adds.
	log=$(cd "$tree" && ./scripts/checkpatch.pl --strict --no-tree --terse --show-types \
		--ignore ENOSYS,FILE_PATH_CHANGES "$p" 2>&1)
	rc=$?
	[ "$rc" = 0 ] || printf '%s\n' "$log" | head -20 | sed 's/^/# /' >> "$out"
	tap $rc "checkpatch --strict ${p#"$top"/kernel-patches/}"
done
[ "$n" = 0 ] && echo "ok 1 no patches in the series # SKIP" >> "$out"
# Every file the series adds has a maintainer in the series' MAINTAINERS:
# a section of its own (PIDFD API, or the subsystem's it extends), not
# THE REST.
for f in $(awk '/^diff --git /{ f = substr($4, 3) } /^new file mode/{ print f }' \
	   "$top"/kernel-patches/[1-9]-*/0*.patch | sort -u); do
	(cd "$tree" && ./scripts/get_maintainer.pl --no-git --no-git-fallback --no-rolestats \
		--no-email --sections -f "$f" 2>/dev/null) |
		awk '/^[A-Z0-9]/ && !/^[A-Z]:/ && $0 != "THE REST" { found = 1 }
		     END { exit !found }'
	tap $? "MAINTAINERS covers $f, which the series adds"
done
tap_end

tap_begin docs man-pages
for page in "$top"/docs/man*/*.[0-9]; do
	[ -f "$page" ] || continue
	# From docs/, where ".so man3/page.3" links resolve, as man(1) does.
	warnings=$(cd "$top/docs" && groff -t -man -ww -z "${page#"$top"/docs/}" 2>&1)
	[ -z "$warnings" ] || printf '%s\n' "$warnings" | head -10 | sed 's/^/# /' >> "$out"
	[ -z "$warnings" ]
	tap $? "man -l ${page#"$top"/} renders without warnings"
done
tap_end

# The Python package installed the two ways its README gives: make install
# (into a DESTDIR) and pip with Debian's setuptools, without an index;
# each installed copy imports, finds its C part and reports a backend.
tap_begin python-install packaging
inst=$(mktemp -d)
log=$(make -s -C "$top/userspace" install DESTDIR="$inst" 2>&1)
tap $? "make -C userspace install DESTDIR=..."
[ -z "$log" ] || printf '%s\n' "$log" | tail -5 | sed 's/^/# /' >> "$out"
site=$(find "$inst" -name pidspawn.pth -printf '%h\n' | head -1)
[ -n "$site" ] && [ -f "$site/pidspawn/__init__.py" ]
tap $? "make install put pidspawn/ and pidspawn.pth in one site directory (${site#"$inst"})"
env -u PIDSPAWN_PYTHON /usr/bin/python3 -c "import site, sys; site.addsitedir(sys.argv[1]); import pidspawn; \
assert pidspawn.__file__.startswith(sys.argv[1]), pidspawn.__file__; print(pidspawn.backend())" "${site:-/nonexistent}" \
	2>&1 | sed 's/^/# backend: /' >> "$out"
tap "${PIPESTATUS[0]}" "the installed package imports from there and has its C part"
log=$( (cd "$top/userspace/python" && /usr/bin/python3 -m pip install -q --no-build-isolation \
	--no-index --no-deps --target "$inst/pip" .) 2>&1)
rc=$?
[ "$rc" = 0 ] || printf '%s\n' "$log" | tail -10 | sed 's/^/# /' >> "$out"
tap $rc "pip install --no-build-isolation userspace/python (Debian's setuptools, no index)"
[ -f "$inst/pip/pidspawn.pth" ]
tap $? "pip put pidspawn.pth beside the package"
env -u PIDSPAWN_PYTHON /usr/bin/python3 -c "import sys; sys.path.insert(0, sys.argv[1]); import pidspawn; \
assert pidspawn.__file__.startswith(sys.argv[1]), pidspawn.__file__; print(pidspawn.backend())" "$inst/pip" \
	2>&1 | sed 's/^/# backend: /' >> "$out"
tap "${PIPESTATUS[0]}" "the pip-installed package imports and has its C part"
rm -rf "$inst" "$top/userspace/python/build" "$top/userspace/python/pidspawn.egg-info"
tap_end
