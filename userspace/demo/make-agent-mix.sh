#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, the seed RFC's workload: agent-mix runs CALLS tool calls with
# 16 in flight, split as 1x16, 2x8, 4x4 and 8x2 worker processes, over
# generated sources and a small git repository. Each split runs with
# glibc's posix_spawn, with the LD_PRELOAD shim (libpidspawn) and with the
# shim and its template cache, taking turns in ROUNDS rounds. Prints
# calls/s per split and variant and the deltas, beside the RFC's figures,
# and the lowest and highest delta of a single round: a delta is only
# resolved when the rounds agree on its sign.
#   make-agent-mix.sh [CALLS] [ROUNDS] [RUNTIME]
# RUNTIME c (the default) is demo/agent-mix, a glibc program, run as said
# above. RUNTIME python is the RFC's own shape: python/bench/agent_mix.py,
# an asyncio program whose tool calls go through subprocess, with CPython's
# own fork_exec() (stock), with pidspawn's drop-in and with the drop-in and
# the template cache; the same mix (agent-mix -l), the same splits and
# rounds, and then how many calls of a traced run of each went native.
here=$(cd "$(dirname "$0")" && pwd)
shim=$here/../lib/libpidspawn-preload.so
py=$here/../python
calls=${1:-240} rounds=${2:-3} runtime=${3:-c}
case $runtime in
c) names="glibc lib templates" ;;
python) names="stock drop-in templates" ;;
*) echo "agent-mix: unknown runtime $runtime (c or python)" >&2; exit 2 ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Python-like sources: 48 files of 123 lines, each with defs, classes and
# imports for the searches to find.
mkdir -p "$work/src"
awk -v dir="$work/src" 'BEGIN {
	for (f = 0; f < 48; f++) {
		out = dir "/m" f ".py"
		print "import os\nimport sys\n" > out
		for (l = 0; l < 20; l++) {
			printf "class Thing%d_%d:\n    pass\n\n", f, l > out
			printf "def handler_%d_%d(x):\n", f, l > out
			printf "    return os.path.join(str(x), \"%d\")\n\n", l > out
		}
		close(out)
	}
}'
cat > "$work/tool.py" <<'EOF'
import sys
with open(sys.argv[1]) as f:
    lines = f.readlines()
print(len(lines), sum(1 for line in lines if line.startswith("def ")))
EOF
# A repository with a commit and two files changed since.
mkdir "$work/repo"
cp "$work"/src/m1[0-9].py "$work/repo/"
(
	cd "$work/repo" && git init -q && git add . &&
	git -c user.name=bench -c user.email=bench@localhost commit -qm init &&
	echo '# changed' >> m10.py && echo '# changed' >> m11.py
) || { echo "agent-mix: git repository setup failed" >&2; exit 1; }

"$here/agent-mix" -l > "$work/tools.txt"

# The Python harness in MODE (stock, dropin, templates) with the rest of
# the arguments.
py_mix() {
	env -u LD_PRELOAD PYTHONPATH="$py" python3 "$py/bench/agent_mix.py" \
		-m "$@" -d "$work" -l "$work/tools.txt"
}

run() {	# variant workers inflight: adds the seconds to t_<variant>_<split>
	case $runtime-$1 in
	c-glibc) out=$(env -u LD_PRELOAD "$here/agent-mix" -w "$2" -t "$3" -n "$calls" -d "$work") ;;
	c-lib) out=$(LD_PRELOAD=$shim "$here/agent-mix" -w "$2" -t "$3" -n "$calls" -d "$work") ;;
	c-templates) out=$(LD_PRELOAD=$shim PIDSPAWN_TEMPLATES=1 \
		"$here/agent-mix" -w "$2" -t "$3" -n "$calls" -d "$work") ;;
	python-glibc) out=$(py_mix stock -w "$2" -t "$3" -n "$calls") ;;
	python-lib) out=$(py_mix dropin -w "$2" -t "$3" -n "$calls") ;;
	python-templates) out=$(py_mix templates -w "$2" -t "$3" -n "$calls") ;;
	esac || { echo "agent-mix failed ($runtime $1, $2x$3): $out" >&2; exit 1; }
	eval "t=\$t_$1_$2"
	eval "t_$1_$2=$(echo "$out" | awk -v t="${t:-0}" '{ printf "%.3f", t + $2 }')"
	eval "round_$1=$(echo "$out" | awk '{ print $2 }')"
}

# The lowest and highest per-round delta of lib and templates so far:
# "lib-min lib-max templates-min templates-max".
round_range() {
	awk -v g="$round_glibc" -v l="$round_lib" -v t="$round_templates" -v r="$range" 'BEGIN {
		dl = (g / l - 1) * 100; dt = (g / t - 1) * 100
		if (split(r, a, " ") < 4) { a[1] = a[2] = dl; a[3] = a[4] = dt }
		printf "%.2f %.2f %.2f %.2f", (dl < a[1] ? dl : a[1]), (dl > a[2] ? dl : a[2]),
		       (dt < a[3] ? dt : a[3]), (dt > a[4] ? dt : a[4])
	}'
}

# The RFC's calls/s (subprocess, spawn_template) and delta, per split.
rfc() {
	case $1 in
	1) echo "411.04 420.32 +2.26%" ;;
	2) echo "666.78 690.08 +3.49%" ;;
	4) echo "955.61 1003.25 +4.99%" ;;
	8) echo "1048.25 1069.18 +2.00%" ;;
	esac
}

set -- $names
echo "agent-tool mix ($runtime): $calls calls per run, 16 in flight, $rounds rounds (calls/s; delta to $1)"
printf '%-6s %9s %9s %8s %9s %8s   %-31s  %s\n' split "$1" "$2" delta "$3" delta \
	"RFC: subprocess template delta" "rounds: $2, $3 delta"
for w in 1 2 4 8; do
	i=$((16 / w))
	r=0 range=
	while [ $r -lt "$rounds" ]; do
		run glibc $w $i
		run lib $w $i
		run templates $w $i
		range=$(round_range)
		r=$((r + 1))
	done
	eval "g=\$t_glibc_$w l=\$t_lib_$w t=\$t_templates_$w"
	awk -v w=$w -v i=$i -v n=$((calls * rounds)) -v g="$g" -v l="$l" -v t="$t" \
		-v rfc="$(rfc $w)" -v range="$range" 'BEGIN {
		split(range, a, " ")
		printf "%dx%-4d %9.2f %9.2f %+7.2f%% %9.2f %+7.2f%%   %-31s  %+.2f..%+.2f%%, %+.2f..%+.2f%%\n",
		       w, i, n / g, n / l, (g / l - 1) * 100, n / t, (g / t - 1) * 100, rfc,
		       a[1], a[2], a[3], a[4]
	}'
done

# Which way the Python harness's calls went: a traced run of each.
[ "$runtime" = python ] || exit 0
for mode in dropin templates; do
	: > "$work/trace"
	PIDSPAWN_TRACE=$work/trace py_mix $mode -w 2 -t 8 -n 32 >/dev/null ||
		{ echo "agent-mix: traced $mode run failed" >&2; exit 1; }
	echo "traced $mode run: $(grep -cE ': (native|template):' "$work/trace") of $(wc -l < "$work/trace") calls native"
done
