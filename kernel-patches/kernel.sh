#!/bin/bash
# The kernel half of the harness: Debian's linux-source-6.12 as a git tree
# in the cache, the series in kernel-patches/N-NAME/ applied in order with
# git am, configured from tinyconfig plus config/*.config, built out of
# tree with ccache.
#
#   kernel.sh tree            prepare the patched build tree
#   kernel.sh build           tree + config + bzImage + headers + kselftests
#   kernel.sh dev-tree        hand out a tree for hacking (git clone)
#   kernel.sh export-series   regenerate kernel-patches/ from the dev tree
#   kernel.sh each-patch      build the kernel at every patch of the series
#
# Environment: PIDSPAWN_CACHE (cache root), KCONFIG (default|debug|off),
# KSERIES (apply the series up to N only: 1 is the core alone), KDEV (dev
# tree path), JOBS.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
cache=${PIDSPAWN_CACHE:-$HOME/.cache/pidspawn}
kconfig=${KCONFIG:-default}
kseries=${KSERIES:-}
tree=$cache/linux
# A build of fewer series is another kernel: its own build directory.
kbuild=$cache/kbuild/$kconfig${kseries:+-s$kseries}
kdev=${KDEV:-$cache/linux-dev}
jobs=${JOBS:-$(($(nproc) + 1))}
tarball=/usr/src/linux-source-6.12.tar.xz
git_id=(-c user.name=pidspawn -c user.email=pidspawn@localhost -c advice.detachedHead=false)

say() { printf 'kernel: %s\n' "$*" >&2; }
die() { printf 'kernel: error: %s\n' "$*" >&2; exit 1; }

# The series' directories, 1-core first; with KSERIES=N the first N.
all_series=$(find "$here" -mindepth 1 -maxdepth 1 -type d -name '[1-9]-*' | LC_ALL=C sort)
if [ -n "$kseries" ]; then
	[ "$kseries" -ge 1 ] 2>/dev/null && [ "$kseries" -le "$(wc -l <<< "$all_series")" ] ||
		die "KSERIES=$kseries: a number from 1 to $(wc -l <<< "$all_series")"
fi

series_dirs() {
	local d
	for d in $all_series; do
		[ -z "$kseries" ] || [ "${d##*/}" \< "$((kseries + 1))-" ] || break
		printf '%s\n' "$d"
	done
}

# A series' patches in order; its cover letter carries no diff.
dir_patches() {
	find "$1" -maxdepth 1 -name '*.patch' ! -name '0000-*' | LC_ALL=C sort
}

series() {
	local d
	for d in $(series_dirs); do
		dir_patches "$d"
	done
}

fragments() {
	echo "$here/config/pidspawn.config"
	case $kconfig in
	default) ;;
	debug|off) echo "$here/config/$kconfig.config" ;;
	*) die "unknown KCONFIG=$kconfig (default, debug or off)" ;;
	esac
}

source_version() {
	dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null ||
		stat -c %s-%Y "$tarball"
}

# The pristine tree: a git repository whose first commit is Debian's source.
pristine_tree() {
	local want have=
	[ -f "$tarball" ] || die "$tarball missing (apt-get install linux-source-6.12)"
	want=$(source_version)
	[ -f "$tree/.git/pidspawn-source" ] && have=$(cat "$tree/.git/pidspawn-source")
	[ "$have" = "$want" ] && return 0

	say "extracting $tarball ($want)"
	rm -rf "$tree" "$cache/kbuild"
	mkdir -p "$tree"
	tar -xJf "$tarball" -C "$tree" --strip-components=1
	git -C "$tree" init -q -b debian
	# Debian's top-level .gitignore ignores everything: add by force.
	git -C "$tree" add -A -f
	git "${git_id[@]}" -C "$tree" commit -q -m "Debian linux-source-6.12 $want"
	git -C "$tree" tag pristine
	echo "$want" > "$tree/.git/pidspawn-source"
}

series_hash() {
	series | xargs -r cat | sha256sum | cut -d' ' -f1
}

# Reapply the series only when it changed; unchanged files keep their
# mtimes so the out-of-tree build stays incremental.
patched_tree() {
	local want have= p
	[ -n "$all_series" ] || die "no series in $here (directories N-NAME)"
	pristine_tree
	want=$(series_hash)
	[ -f "$tree/.git/pidspawn-series" ] && have=$(cat "$tree/.git/pidspawn-series")
	[ "$have" = "$want" ] && return 0

	rm -f "$tree/.git/pidspawn-series"
	git -C "$tree" am --abort >/dev/null 2>&1 || true
	git "${git_id[@]}" -C "$tree" checkout -q -f -B series pristine
	while read -r p; do
		[ -n "$p" ] || continue
		if ! git "${git_id[@]}" -C "$tree" am -q --committer-date-is-author-date "$p" >/dev/null 2>&1; then
			git -C "$tree" am --abort >/dev/null 2>&1 || true
			die "patch does not apply: ${p#"$top"/}"
		fi
	done < <(series)
	echo "$want" > "$tree/.git/pidspawn-series"
	say "series applied: $(series_dirs | xargs -n1 basename | paste -sd' ' -), $(series | wc -l) patches"
}

config_hash() {
	{ cat "$tree/.git/pidspawn-series"; fragments | xargs cat; } | sha256sum | cut -d' ' -f1
}

# Every line of the fragments must be in the final .config: an option that
# olddefconfig silently drops is a hole in the tests. A later fragment
# overrides an earlier one (off.config turns the series' options off).
check_config() {
	local frag line name missing=0 later i defined=
	local -a frags
	mapfile -t frags < <(fragments)
	# With fewer series, the options of the later ones do not exist.
	[ -z "$kseries" ] || defined=$(grep -rhoP --include='Kconfig*' '^(menu)?config \K\w+' "$tree" | sort -u)
	for i in "${!frags[@]}"; do
		frag=${frags[$i]}
		while IFS= read -r line; do
			case "$line" in
			CONFIG_*=*) name=${line%%=*} ;;
			"# CONFIG_"*" is not set") name=${line#\# }; name=${name%% *} ;;
			*) continue ;;
			esac
			[ -z "$kseries" ] || grep -qx "${name#CONFIG_}" <<< "$defined" || continue
			for later in "${frags[@]:$((i + 1))}"; do
				grep -qE "^$name=|^# $name is not set" "$later" && continue 2
			done
			# Off is off whether said or, for an option whose
			# dependencies are off, left out.
			if ! grep -qxF -- "$line" "$kbuild/.config" &&
			   { [ "${line#\#}" = "$line" ] || grep -qE "^$name=" "$kbuild/.config"; }; then
				printf 'kernel: %s: %s did not survive olddefconfig (now: %s)\n' \
					"$(basename "$frag")" "$line" \
					"$(grep -E "^$name=|^# $name is not set" "$kbuild/.config" || echo unset)" >&2
				missing=1
			fi
		done < "$frag"
	done
	[ "$missing" = 0 ] || die "config fragment options were dropped"
}

configure() {
	local want have=
	want=$(config_hash)
	[ -f "$kbuild/.pidspawn-config" ] && have=$(cat "$kbuild/.pidspawn-config")
	[ "$have" = "$want" ] && [ -f "$kbuild/.config" ] && return 0

	mkdir -p "$kbuild"
	say "configuring $kconfig kernel"
	make -s -C "$tree" O="$kbuild" tinyconfig >/dev/null
	(cd "$tree" && scripts/kconfig/merge_config.sh -m -O "$kbuild" \
		"$kbuild/.config" $(fragments) >/dev/null)
	make -s -C "$tree" O="$kbuild" olddefconfig >/dev/null
	check_config
	echo "$want" > "$kbuild/.pidspawn-config"
}

build() {
	patched_tree
	configure
	say "building $kconfig kernel in $kbuild"
	make -s -C "$tree" O="$kbuild" -j"$jobs" CC="ccache gcc" \
		KBUILD_BUILD_USER=pidspawn KBUILD_BUILD_HOST=pidspawn bzImage
	make -s -C "$tree" O="$kbuild" headers_install >/dev/null
	make -s -C "$tree/tools/testing/selftests" O="$kbuild" \
		TARGETS="pidfd clone3 exec core" -j"$jobs" \
		INSTALL_PATH="$kbuild/kselftest_install" install >/dev/null 2>"$kbuild/kselftest-build.log" ||
		{ tail -30 "$kbuild/kselftest-build.log" >&2; die "kselftest build failed"; }
	say "kernel ready: $kbuild/arch/x86/boot/bzImage"
}

# A tree for hacking: a clone of the build tree with the series as commits
# on branch pidspawn, and a branch for each series (1-core, ...) at its
# last patch, whose description is the series' cover letter. Rebases keep
# the series' branches with their commits (rebase.updateRefs).
dev_tree() {
	local d name n=0 cover
	patched_tree
	if [ -d "$kdev/.git" ]; then
		say "dev tree already exists: $kdev (commit there, then make kernel-patches)"
		return 0
	fi
	[ -z "$kseries" ] || die "make kernel-tree takes every series (no KSERIES)"
	git clone -q --no-local "$tree" "$kdev"
	git -C "$kdev" fetch -q origin 'refs/tags/pristine:refs/tags/pristine'
	git -C "$kdev" checkout -q -B pidspawn origin/series
	git -C "$kdev" config rebase.updateRefs true
	# Cover letters are written as the series' author.
	git -C "$kdev" config user.name "$(git -C "$kdev" log -1 --format=%an pidspawn)"
	git -C "$kdev" config user.email "$(git -C "$kdev" log -1 --format=%ae pidspawn)"
	for d in $(series_dirs); do
		name=${d##*/}
		n=$((n + $(dir_patches "$d" | wc -l)))
		git -C "$kdev" branch -f "$name" "$(git -C "$kdev" rev-list --reverse pristine..pidspawn | sed -n "${n}p")"
		[ -f "$d/0000-cover-letter.patch" ] || continue
		# Subject line and body, without the generated shortlog and diffstat.
		cover=$(sed -n -e '/^Subject: /{s/^Subject: \[[^]]*\] //;p}' "$d/0000-cover-letter.patch"
			echo
			sed -e '1,/^$/d' -e '/^[^ ].* ([0-9]*):$/,$d' "$d/0000-cover-letter.patch")
		git -C "$kdev" config "branch.$name.description" "$cover"
	done
	say "dev tree: $kdev (branch pidspawn on tag pristine; series branches $(series_dirs | xargs -n1 basename | paste -sd' ' -))"
}

# kernel-patches/N-NAME/ from the dev tree's series branches, each series
# on the one before, its base and prerequisites recorded (--base).
export_series() {
	local tmp name prev=pristine last
	[ -d "$kdev/.git" ] || die "no dev tree at $kdev (make kernel-tree first)"
	mapfile -t names < <(git -C "$kdev" for-each-ref --format='%(refname:short)' 'refs/heads/[1-9]-*' | LC_ALL=C sort)
	[ "${#names[@]}" -gt 0 ] || die "no series branches (1-core, ...) in $kdev"
	last=${names[-1]}
	[ "$(git -C "$kdev" rev-parse "$last")" = "$(git -C "$kdev" rev-parse pidspawn)" ] ||
		die "branch $last is not at pidspawn: move it (or add a series) first"
	tmp=$(mktemp -d)
	for name in "${names[@]}"; do
		git -C "$kdev" merge-base --is-ancestor "$prev" "$name" ||
			die "series $name is not on the one before it ($prev)"
		git -C "$kdev" format-patch -q --cover-letter --cover-from-description=subject \
			--subject-prefix="PATCH v3" --base=pristine -o "$tmp/$name" "$prev..$name"
		prev=$name
	done
	find "$here" -mindepth 1 -maxdepth 1 -type d -name '[1-9]-*' -exec rm -rf {} +
	rm -f "$here"/*.patch
	mv "$tmp"/* "$here"/
	rmdir "$tmp"
	for name in "${names[@]}"; do
		say "kernel-patches/$name/: $(dir_patches "$here/$name" | wc -l) patches and a cover letter"
	done
}

# Build the kernel at every patch of the series, in order, so that each
# patch is known to build on its own, with checkpatch --strict on each; at
# a patch that touches the selftests or the uapi, build the pidfd
# selftests too.
# SERIES_FROM=N starts at patch N (a run cut short, or a series changed
# from patch N on): the tree before it is built first, unreported.
each_patch() {
	local wt=$cache/linux-each kb=$cache/kbuild/each n=0 commit subject log
	local from=${SERIES_FROM:-1} base=pristine d k i
	local -a label=()
	patched_tree
	# "patch 23 (2-attributes 1/10)": where each patch is in its series.
	for d in $(series_dirs); do
		k=$(dir_patches "$d" | wc -l)
		for i in $(seq "$k"); do
			label+=("${d##*/} $i/$k")
		done
	done
	configure
	[ "$from" -ge 1 ] 2>/dev/null || die "SERIES_FROM=$from: a patch number"
	[ "$from" = 1 ] || base=$(git -C "$tree" rev-list --reverse pristine..series |
				  sed -n "$((from - 1))p")
	[ -n "$base" ] || die "SERIES_FROM=$from: the series has no patch $((from - 1))"
	rm -rf "$wt"
	git -C "$tree" worktree prune
	git -C "$tree" worktree add -q --detach "$wt" "$base"
	mkdir -p "$kb"
	cp "$kbuild/.config" "$kb/.config"
	if [ "$from" != 1 ]; then
		say "building the series up to patch $((from - 1)) first"
		make -s -C "$wt" O="$kb" olddefconfig >/dev/null &&
			make -s -C "$wt" O="$kb" -j"$jobs" CC="ccache gcc" bzImage \
				> "$kb/build-base.log" 2>&1 ||
			{ tail -20 "$kb/build-base.log" >&2; die "patch $((from - 1)) does not build"; }
	fi
	for commit in $(git -C "$tree" rev-list --reverse pristine..series); do
		n=$((n + 1))
		[ "$n" -ge "$from" ] || continue
		subject=$(git -C "$tree" log -1 --format=%s "$commit")
		git -C "$wt" checkout -q --detach "$commit"
		# As make check runs it; see selftests/host-checks.sh.
		if ! log=$(git -C "$tree" format-patch -1 --stdout "$commit" |
			   (cd "$wt" && ./scripts/checkpatch.pl --strict --no-tree --terse \
				--ignore ENOSYS,FILE_PATH_CHANGES -)); then
			printf '%s\n' "$log" >&2
			die "patch $n (${label[n - 1]}) fails checkpatch: $subject"
		fi
		if make -s -C "$wt" O="$kb" olddefconfig >/dev/null &&
		   make -s -C "$wt" O="$kb" -j"$jobs" CC="ccache gcc" bzImage \
			> "$kb/build-$n.log" 2>&1; then
			say "patch $n (${label[n - 1]}) builds, checkpatch clean: $subject"
		else
			tail -20 "$kb/build-$n.log" >&2
			die "patch $n (${label[n - 1]}) does not build: $subject"
		fi
		git -C "$tree" diff --quiet "$commit^" "$commit" -- tools/testing/selftests include/uapi &&
			continue
		if make -s -C "$wt" O="$kb" headers_install >/dev/null &&
		   make -s -C "$wt/tools/testing/selftests" O="$kb" TARGETS=pidfd \
			-j"$jobs" >> "$kb/build-$n.log" 2>&1; then
			say "patch $n (${label[n - 1]}): pidfd selftests build"
		else
			tail -20 "$kb/build-$n.log" >&2
			die "patch $n (${label[n - 1]}): pidfd selftests do not build: $subject"
		fi
	done
	git -C "$tree" worktree remove --force "$wt"
}

case "${1:-build}" in
tree) patched_tree ;;
build) build ;;
dev-tree) dev_tree ;;
export-series) export_series ;;
each-patch) each_patch ;;
path) echo "$kbuild" ;;
*) die "unknown command $1" ;;
esac
