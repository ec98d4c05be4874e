#!/bin/bash
# What a killed srt leaves behind: its proxy directory in TMPDIR
# ("srt-<pid>-XXXXXX") and its run directory below /tmp/claude
# ("srt-run.XXXXXX"). The cleanup guard removes them when srt dies during
# the run; a srt killed before its guard was in place, or together with it
# (a pid namespace torn down kills both), leaves them, and the next start
# removes those that carry srt's mark (the sticky bit, mode 01700) and that
# no process holds (common/rmtree.h). A live run's directories are held by
# a lock, whatever the pid namespace of the srt that sweeps: a pid in a
# name means nothing across pid namespaces. An unmarked directory (an
# earlier srt's, which takes no lock, or the user's own) is never touched,
# a proxy directory loses only what srt puts there, and what a command
# leaves in its TMPDIR (a directory closed to its owner, a tree deeper than
# the walk's descriptors go) goes at the run's end.
. "$(dirname "$0")/lib.sh"
need_bwrap_sandbox
plan 24
export TMPDIR="$WORK/tb"
mkdir -p "$TMPDIR"
S=$(fs s '{"denyRead":[],"allowWrite":["."],"denyWrite":[]}')
# the run directories' base: /tmp/claude, or the per-user name srt takes
# when another user owns that
RUNDIR=$(srt__run -s "$S" -c 'echo $TMPDIR' 2>/dev/null)
BASE=${RUNDIR%/*}
case $RUNDIR in
*/srt-run.??????) ;;
*)
	diag "no run directory: $RUNDIR"
	BASE=/nonexistent
	;;
esac
gone() { [ ! -e "$1" ] && [ ! -L "$1" ]; }
past_grace() { sleep 2.5; }

# 1-3: a killed run's leftovers, as the kernel leaves them when a pid
# namespace ends (srt and its guard killed at once)
LEFT_P="$TMPDIR/srt-1-AbCdEf" # pid 1 is alive in every namespace
LEFT_R="$BASE/srt-run.AbCdEf"
mkdir -m 700 "$LEFT_P" "$LEFT_P/masked" "$LEFT_R" "$LEFT_R/sub" "$LEFT_R/sub/deeper" "$LEFT_R/closed"
touch "$LEFT_P/proxy.sock" "$LEFT_P/masked/masked-0" "$LEFT_R/sub/deeper/f" "$LEFT_R/closed/f"
chmod 1700 "$LEFT_P" "$LEFT_R" # srt's mark
chmod 500 "$LEFT_R/sub"  # a directory the command made unwritable
chmod 000 "$LEFT_R/closed" # and one it closed to its owner
# 8-10: unmarked look-alikes (an earlier srt's live run, the user's own
# directory), and a marked proxy-named directory holding more than srt puts
# there
OLD_R="$BASE/srt-run.OlDsRt"
OLD_P="$TMPDIR/srt-3-OlDsRt"
MINE_P="$TMPDIR/srt-2024-drafts"
mkdir -m 700 "$OLD_R" "$OLD_P" "$MINE_P"
touch "$OLD_R/work" "$OLD_P/proxy.sock" "$MINE_P/proxy.sock" "$MINE_P/notes"
chmod 1700 "$MINE_P"
# 11-12: a killed run's tree larger than one start's share of the sweep
BIG_R="$BASE/srt-run.BiGtRe"
mkdir -m 700 "$BIG_R"
python3 -c 'import os, sys
for i in range(25000): open(os.path.join(sys.argv[1], "f%d" % i), "w").close()' "$BIG_R"
chmod 1700 "$BIG_R"
# 4-7: what must stay: a directory just made (its maker may not hold it
# yet), one a process holds, a link with a run directory's name, and a
# proxy-named directory with other bits than srt's
YOUNG=$BASE/srt-run.YoUnG1
HELD=$BASE/srt-run.HeLd01
LINK=$BASE/srt-run.LiNk01
TARGET="$WORK/link-target"
OPEN_P="$TMPDIR/srt-2-OpEn01"
mkdir -m 700 "$HELD" "$TARGET"
touch "$TARGET/keep"
ln -s "$TARGET" "$LINK"
mkdir -m 755 "$OPEN_P"
flock "$HELD" sleep 30 &
HOLDER=$!
past_grace
mkdir -m 700 "$YOUNG"
out=$(srt__run -s "$S" -c 'echo ran' 2>/dev/null)
check "a killed run's proxy directory is removed, though its pid is alive here" gone "$LEFT_P"
check "a killed run's run directory is removed with what is below it" gone "$LEFT_R"
check "the start that swept ran its command" test "$out" = ran
check "a run directory younger than the grace is left" test -d "$YOUNG"
check "a run directory a process holds is left" test -d "$HELD"
check "a link named as a run directory is left, and its target" test -L "$LINK" -a -e "$TARGET/keep"
check "a proxy-named directory with other bits than srt's is left" test -d "$OPEN_P"
check "an unmarked run directory (an earlier srt's live run) is left with its files" test -e "$OLD_R/work"
check "an unmarked proxy directory is left with its socket" test -e "$OLD_P/proxy.sock"
check "a marked proxy-named directory loses only what srt puts there, and its mark" \
	test ! -e "$MINE_P/proxy.sock" -a -e "$MINE_P/notes" -a "$(stat -c %a "$MINE_P" 2>/dev/null)" = 700
left=$(ls -A "$BIG_R" 2>/dev/null | wc -l)
check "one start removes a bounded share of a killed run's large tree, not all of it ($left of 25000 left)" \
	test -d "$BIG_R" -a "$left" -gt 0
# later starts go on (each sweep's 10 ms may go to other leftovers first,
# and a sweep makes the directory as young as one just made)
left2=$left
for _ in 1 2 3 4 5; do
	past_grace
	srt__run -s "$S" -c true >/dev/null 2>&1
	left2=$(ls -A "$BIG_R" 2>/dev/null | wc -l)
	[ "$left2" -lt 25000 ] && break
done
check "later starts remove some of it ($left2 left)" test "$left2" -lt 25000
kill "$HOLDER" 2>/dev/null
wait "$HOLDER" 2>/dev/null
chmod 700 "$LEFT_R/closed" 2>/dev/null
rm -rf "$YOUNG" "$HELD" "$LINK" "$OPEN_P" "$LEFT_P" "$LEFT_R" "$OLD_R" "$OLD_P" "$MINE_P" "$BIG_R"

# 13-14: what a command leaves in its TMPDIR goes at the run's end: a
# directory closed to its owner, and a chain deeper than the walk's 256
# descriptors
out=$(srt__run -s "$S" -c 'cd "$TMPDIR" && mkdir -p closed/in && touch closed/in/f && chmod 000 closed &&
	d=.; for i in $(seq 300); do d=$d/d; done; mkdir -p "$d" && touch "$d/leaf" && echo "$TMPDIR"' 2>/dev/null)
check "the run made its tree" test -n "$out"
check "its TMPDIR is gone at its end, closed and deep parts too" gone "${out:-/nonexistent}"

# 15-20: a live run's directories survive a srt that sweeps from another pid
# namespace (whose kill(pid, 0) finds no such process), and a srt killed in
# a pid namespace, guard and all, is swept by the next start
if ! unshare -p -f --mount-proc true 2>/dev/null; then
	for i in 15 16 17 18 19 20; do skip "unshare -p: no new pid namespace here ($(id -un))"; done
	exit 0
fi
rm -f "$WORK/live.out"
# the live run: its TMPDIR on its first line, its write there after the
# other start on the second
(srt__run -s "$S" -c 'echo "$TMPDIR"; sleep 5; echo written >"$TMPDIR/after" && cat "$TMPDIR/after"' >"$WORK/live.out" 2>&1 &)
for _ in $(seq 50); do [ -s "$WORK/live.out" ] && break; sleep 0.1; done
LIVE_T=$(sed -n 1p "$WORK/live.out")
LIVE_P=$(ls -d "$TMPDIR"/srt-*-* 2>/dev/null | head -1)
check "the live run has a run and a proxy directory" test -d "$LIVE_T" -a -d "$LIVE_P"
past_grace
out=$(unshare -p -f --mount-proc env LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}" TMPDIR="$TMPDIR" HOME="$HOME" \
	timeout 30 "$SRT" --backend="$BACKEND" -s "$S" -c 'echo ran' 2>"$WORK/inner.err")
[ "$out" = ran ] || diag "the start in a pid namespace: $out $(cat "$WORK/inner.err")"
check "a start in another pid namespace (it ran) leaves the live run's proxy directory" \
	test "$out" = ran -a -d "$LIVE_P"
check "and its run directory" test -d "$LIVE_T"
for _ in $(seq 80); do [ "$(wc -l <"$WORK/live.out")" -ge 2 ] && break; sleep 0.1; done
check "the live run writes in its TMPDIR after that start" test "$(sed -n 2p "$WORK/live.out")" = written
# a srt killed with its guard: the namespace's init ends, and the kernel
# kills every other process in it
rm -f "$WORK/ns.out"
unshare -p -f --mount-proc env LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}" TMPDIR="$TMPDIR" HOME="$HOME" \
	sh -c '"$1" --backend="$2" -s "$3" -c "echo \$TMPDIR; sleep 30" >"$4" 2>/dev/null & sleep 2' \
	_ "$SRT" "$BACKEND" "$S" "$WORK/ns.out" 2>/dev/null
NS_T=$(head -1 "$WORK/ns.out")
NS_P=$(ls -d "$TMPDIR"/srt-*-* 2>/dev/null | grep -v "^$LIVE_P\$" | head -1)
if [ -n "$NS_T" ] && [ -d "$NS_T" ] && [ -n "$NS_P" ]; then
	past_grace
	srt__run -s "$S" -c true >/dev/null 2>&1
	check "a run killed with its guard in a pid namespace: its proxy directory is swept" gone "$NS_P"
	check "and its run directory" gone "$NS_T"
else
	not_ok "a run killed in a pid namespace left its directories (TMPDIR '$NS_T', proxy '$NS_P')"
	not_ok "and its run directory"
fi

# 21-24. srt killed right after it made its proxy directory, or its run
# directory, before it held it (a shim preloaded into srt kills it there;
# no guard is running yet). Made unmarked and marked only once held, such
# a directory stayed for good: no start takes an unmarked one. Made marked
# (srt__rundir_make), the first start past the grace removes it.
cat > "$WORK/kill-after-make.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

/* KILL_AFTER_MAKE=proxy: a directory named srt-<digit>...; =run: srt-run.* */
static void maybe_die(const char *path)
{
	const char *want = getenv("KILL_AFTER_MAKE"), *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (!want || strncmp(base, "srt-", 4) != 0)
		return;
	if ((!strcmp(want, "proxy") && base[4] >= '0' && base[4] <= '9') ||
	    (!strcmp(want, "run") && !strncmp(base, "srt-run.", 8)))
		raise(SIGKILL);
}

char *mkdtemp(char *tmpl)
{
	static char *(*real)(char *);
	char *r;

	if (!real)
		real = (char *(*)(char *))dlsym(RTLD_NEXT, "mkdtemp");
	if ((r = real(tmpl)))
		maybe_die(r);
	return r;
}

int mkdir(const char *path, mode_t mode)
{
	static int (*real)(const char *, mode_t);
	int r;

	if (!real)
		real = (int (*)(const char *, mode_t))dlsym(RTLD_NEXT, "mkdir");
	if ((r = real(path, mode)) == 0)
		maybe_die(path);
	return r;
}
C
if ! cc -shared -fPIC -o "$WORK/kill-after-make.so" "$WORK/kill-after-make.c" -ldl 2>"$WORK/cc.err"; then
	for _ in 1 2 3 4; do not_ok "the shim that kills srt after it makes a directory builds ($(head -c 200 "$WORK/cc.err"))"; done
else
	pre="$WORK/kill-after-make.so"
	asan=$(ldd "$SRT" 2>/dev/null | awk '/libasan/ { print $3 }')
	[ -n "$asan" ] && pre="$asan $pre"
	# the new directory of KIND srt left, killed right after making it
	killed_make() { # KIND DIR
		local before after
		before=$(ls -d "$2"/srt-* 2>/dev/null | sort)
		env LD_PRELOAD="$pre" KILL_AFTER_MAKE="$1" "$SRT" --backend="$BACKEND" -s "$S" -c true \
			>/dev/null 2>&1 </dev/null
		after=$(ls -d "$2"/srt-* 2>/dev/null | sort)
		comm -13 <(printf '%s\n' "$before") <(printf '%s\n' "$after") | head -1
	}
	for kind in proxy run; do
		[ "$kind" = proxy ] && where=$TMPDIR || where=$BASE
		left=$(killed_make "$kind" "$where")
		mode=$(stat -c %a "${left:-/nonexistent}" 2>/dev/null)
		check "srt killed right after making its $kind directory left it (${left:-none}, mode ${mode:-none})" \
			test -n "$left" -a -d "${left:-/nonexistent}"
		past_grace
		srt__run -s "$S" -c true >/dev/null 2>&1
		check "the next start past the grace removes it (mode ${mode:-none} when left)" gone "${left:-/nonexistent}"
	done
fi
