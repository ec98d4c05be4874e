#!/bin/sh
# Build the libFuzzer harnesses and run each for a bounded time on a copy
# of its committed seed corpus (tests/fuzz/corpus/<harness>/, never
# modified here). Prints TAP: one line per harness, then the total number
# of executions; exits non-zero when a harness crashed, leaked, timed out,
# ran out of memory or broke one of its invariants.
#   tests/fuzz/run.sh [SECONDS]     seconds per harness: $1, else
#                                   $FUZZ_SECONDS, else 30
# FUZZ_JOBS harnesses fuzz at once (default: the number of CPUs), each for
# the same SECONDS: a harness is one process on one CPU, so the others
# would sit idle while it runs.
# Crash inputs and full logs are kept in $FUZZ_ARTIFACTS (default
# ./fuzz-artifacts); everything else lives in a temporary directory.
# Without clang/libFuzzer the whole test is skipped.
set -u

here=$(cd "$(dirname "$0")" && pwd)
secs=${1:-${FUZZ_SECONDS:-30}}
harnesses="settings-json settings-yaml domain http socks auth tls seatbelt decider subst"
cc=${CLANG:-clang}

case $secs in
'' | *[!0-9]*)
	echo "usage: $0 [SECONDS]" >&2
	exit 2 ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/srt-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

"$here/build.sh" "$work/bin" >"$work/build.log" 2>&1
rc=$?
if [ $rc -eq 77 ]; then
	echo "1..1"
	echo "ok 1 # SKIP clang with -fsanitize=fuzzer is not installed"
	exit 0
fi
if [ $rc -ne 0 ]; then
	echo "1..1"
	echo "not ok 1 - fuzz harnesses build"
	sed 's/^/# /' "$work/build.log"
	exit 1
fi

art=${FUZZ_ARTIFACTS:-$PWD/fuzz-artifacts}
set -- $harnesses
echo "1..$#"

# fuzz_one H: fuzz harness H into $work/H.log, its exit status into $work/H.rc
fuzz_one() {
	mkdir -p "$work/corpus/$1" "$work/crash/$1"
	cp "$here/corpus/$1/"* "$work/corpus/$1/" 2>/dev/null
	# -timeout: one input may take at most 10 s; -rss_limit_mb: 2 GiB;
	# both count as failures (a hostile input must not hang or balloon)
	"$work/bin/fuzz-$1" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$work/crash/$1/" \
		"$work/corpus/$1" >"$work/$1.log" 2>&1
	echo $? >"$work/$1.rc"
}
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $jobs in
'' | *[!0-9]* | 0) jobs=1 ;;
esac
# in groups of $jobs, each group waited for whole (they all take $secs)
k=0
for h in $harnesses; do
	fuzz_one "$h" &
	k=$((k + 1))
	if [ $k -ge "$jobs" ]; then
		wait
		k=0
	fi
done
wait

n=0
failed=0
total=0
for h in $harnesses; do
	n=$((n + 1))
	log=$work/$h.log
	frc=$(cat "$work/$h.rc" 2>/dev/null || echo 1)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	execs=${execs:-0}
	total=$((total + execs))
	if [ $frc -eq 0 ]; then
		echo "ok $n - fuzz $h: $execs execs, no crash"
		continue
	fi
	failed=1
	mkdir -p "$art/$h"
	cp "$work/crash/$h/"* "$art/$h/" 2>/dev/null
	cp "$log" "$art/$h/fuzz.log"
	crash=$(ls "$art/$h" | grep -v '^fuzz.log$' | head -n 1)
	echo "not ok $n - fuzz $h: crash after $execs execs: ${crash:+$art/$h/$crash}"
	echo "#   full log: $art/$h/fuzz.log"
	echo "#   reproduce: tests/fuzz/build.sh OUT && OUT/fuzz-$h ${crash:+$art/$h/$crash}"
	# the report from its first line: the messages and the stack frames
	# in srt's code, without the fuzzer's own frames and progress lines
	sed -n '/invariant violated\|ERROR: \|runtime error\|^==[0-9]*==/,$p' "$log" |
		grep -v '^#[0-9]\|in fuzzer::\|libc\.so\|libc_start\|in _start \|sanitizer_print\|^ *$' |
		sed 's/ (BuildId: [0-9a-f]*)//' | head -n 20 | sed 's/^/#   /'
done
echo "# total: $total executions in $# harnesses (${secs} s each)"
exit $failed
