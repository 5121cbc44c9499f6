#!/bin/bash
# Count TAP results: RESULTS/<suite>/<test>.tap with the program's exit
# status in <test>.rc. Prints "SUITE: N passed, N failed, N skipped" per
# suite (in the order of RESULTS/suites.order) after any failure details,
# then the total alone on the last line. Exits 1 if anything failed.
#
# A program's "ok"/"not ok" lines are its results ("# SKIP" marks a skip);
# a program that printed none counts once by its exit status (0 pass,
# 4 skip, else fail); a nonzero status other than 4 that no "not ok"
# explains counts as one more failure (a crash after its last result).
set -u
results=$1
total_pass=0 total_fail=0 total_skip=0
summary=()

known=$(dirname "$0")/known-failures

count_program() {
	local suite=$1 tap=$2 rc
	rc=$(cat "${tap%.tap}.rc" 2>/dev/null || echo missing)
	awk -v rc="$rc" -v suite="$suite" -v name="$(basename "${tap%.tap}")" '
		FNR == NR {
			if ($0 !~ /^#/ && NF >= 3 && $1 == suite && $2 == name)
				known[$3] = 1
			next
		}
		/^(not )?ok [0-9]+/ {
			lines++
			if ($1 == "not") {
				test = $4
				if ($0 ~ /# *(TODO|XFAIL)/) pass++
				else if (test in known) { skip++; expected++ }
				else { fail++; failed = failed "\n    " $0 }
			} else if ($0 ~ /# *[Ss][Kk][Ii][Pp]/) skip++
			else pass++
		}
		END {
			if (!lines) {
				if (rc == "0") pass++
				else if (rc == "4") skip++
				else { fail++; failed = failed "\n    " name ": exit status " rc " with no results" }
			} else if (rc != "0" && rc != "4" && !fail && !expected) {
				fail++; failed = failed "\n    " name ": exit status " rc " after its results"
			}
			printf "%d %d %d%s\n", pass, fail, skip, failed
		}' "$known" "$tap"
}

while read -r suite; do
	[ -d "$results/$suite" ] || continue
	p=0 f=0 s=0 details=
	for tap in "$results/$suite"/*.tap; do
		[ -f "$tap" ] || continue
		out=$(count_program "$suite" "$tap")
		read -r a b c <<< "$(head -n1 <<< "$out")"
		p=$((p + a)) f=$((f + b)) s=$((s + c))
		[ "$b" -gt 0 ] && details+="  $(basename "$tap" .tap):$(tail -n +2 <<< "$out")"$'\n'
	done
	while read -r ksuite kprog ktest reason; do
		[ "$ksuite" = "$suite" ] || continue
		grep -qE "^not ok [0-9]+ $ktest( |\$)" "$results/$suite/$kprog.tap" 2>/dev/null &&
			details+="  $kprog: $ktest counted as skipped, a known stock failure: $reason"$'\n'
	done < <(grep -v '^#' "$known")
	summary+=("$suite: $p passed, $f failed, $s skipped")
	[ -n "$details" ] && printf '%s:\n%s' "$suite" "$details"
	total_pass=$((total_pass + p)) total_fail=$((total_fail + f)) total_skip=$((total_skip + s))
done < "$results/suites.order"

printf '%s\n' "${summary[@]}"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" = 0 ]
