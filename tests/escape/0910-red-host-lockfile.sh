#!/bin/bash
# Escape classes H1 (linux-bwrap) and H7 (linux-landlock): a write into a
# protected file by way of the HOST's own temporary file. git config (and
# git remote, git branch --set-upstream-to, ...) on the host writes the new
# .git/config into .git/config.lock and renames it over .git/config. The
# lock is an ordinary new file in .git, which the command can write: the
# command polls for .git/config.lock, and the moment it exists appends a
# long newline padding and a [core] fsmonitor section. git's own writes go
# at git's offsets from 0 and overwrite the padding; the section stays
# after git's content, and git renames the lock over .git/config. Before
# the fix the linux-bwrap watcher read the new file after the rename and
# took all of it for the host's content (5 of 5 runs got in); the next git
# command on the host ran the fsmonitor.
# The watcher now counts, with fanotify, the opens of every file made in a
# directory that holds a write-protected file: a file renamed over the
# protected name that a process besides its maker opened has its content
# replaced by what srt last accepted from the host, and the run reports it.
# linux-landlock is closed by the supervisor refusing the lock of a
# protected file (tests/escape/0910-red-lockfile-landlock.sh).
# The fix must not undo the host's own changes: 20 host git config and 20
# sed -i on .git/config during one run of a command that does not touch
# them must all stay, with nothing reported.
. "$(dirname "$0")/lib.sh"
need_bwrap
LL="$top_builddir/backends/linux-landlock/.libs/linux_landlock.so"
BW="$top_builddir/backends/linux-bwrap/.libs/linux_bwrap.so"
CC=${CC:-cc}
command -v git >/dev/null 2>&1 && command -v "$CC" >/dev/null 2>&1 ||
	{ skip_rest 1 "git or a C compiler missing"; echo "1..$_tap_n"; exit 0; }
cat > "$WORK/inj.c" <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	static char buf[20000];
	size_t n;
	int fd;

	memset(buf, '\n', 16384);
	n = 16384 + (size_t)snprintf(buf + 16384, sizeof(buf) - 16384,
				     "[core]\n\tfsmonitor = \"touch %s; false\"\n", argv[1]);
	close(open("started", O_WRONLY | O_CREAT, 0644));
	for (;;) {
		fd = open(".git/config.lock", O_WRONLY | O_APPEND);
		if (fd >= 0)
			break;
		if (access("stop", F_OK) == 0)
			return 1;
	}
	if (write(fd, buf, n) != (ssize_t)n)
		return 2;
	close(fd);
	close(open("wrote", O_WRONLY | O_CREAT, 0644));
	return 0;
}
EOF
"$CC" -O2 -o "$WORK/inj" "$WORK/inj.c" || diag "cannot build the injector"
chmod 755 "$WORK" "$WORK/inj" 2>/dev/null
P="$WORK/proj"
S=$(fsjson s '{"denyRead":["~/.ssh","~/.aws"],"allowWrite":["."],"denyWrite":[]}')
try() { # try BACKEND: 1 when the command's fsmonitor reached .git/config
	local be=$1 i
	cd "$WORK" && rm -rf "$P" && mkdir -p "$P" && cd "$P" && git init -q . || return 0
	rm -f "$WORK/PWNED"
	( trap - EXIT; exec timeout -k 5 60 "$SRT" --backend="$be" -s "$S" -c "$WORK/inj $WORK/PWNED; sleep 1" \
		>"$WORK/bg.out" 2>&1 </dev/null ) &
	local pid=$!
	wait_for "$P/started" 100
	git config user.email host@example.org
	sleep 0.3; touch "$P/stop"; wait "$pid"
	git status >/dev/null 2>&1
	if [ -e "$P/wrote" ]; then
		wrote=$((wrote + 1))
		grep -q "deny write $P/.git/config" "$WORK/bg.out" && reported=$((reported + 1))
	fi
	grep -q fsmonitor "$P/.git/config" || test -e "$WORK/PWNED"
}
for be in "$BW"; do
	hits=0 wrote=0 reported=0
	for n in 1 2 3 4 5 6 7 8 9 10; do
		try "$be" && hits=$((hits + 1))
	done
	attempt "$([ "$be" = "$BW" ] && echo H1 || echo H7)" \
		"$(basename "$be" .so): no fsmonitor of the command's in .git/config after the host's git config ($hits of 10 got in)" \
		test "$hits" = 0
	attempt H1 "$(basename "$be" .so): each write the command made into the lock was reported ($reported of $wrote)" \
		test "$reported" = "$wrote"
done

# no false positive: the host's git config and sed -i during a run whose
# command does not touch .git keep every change, and nothing is reported
cd "$WORK" && rm -rf "$P" && mkdir -p "$P" && cd "$P" && git init -q .
rm -f "$WORK/stop"
( trap - EXIT; exec timeout -k 5 120 "$SRT" --backend="$BW" -s "$S" -c "touch started; while [ ! -e stop ]; do sleep 0.05; done" \
	>"$WORK/bg.out" 2>&1 </dev/null ) &
pid=$!
wait_for "$P/started" 100
for n in $(seq 1 20); do
	git config "host.k$n" "v$n"
	sed -i "s/^\[core\]\$/[core]\n\tsed$n = s$n/" .git/config
done
touch "$P/stop"; wait "$pid"
kept=0
for n in $(seq 1 20); do
	[ "$(git config "host.k$n")" = "v$n" ] && [ "$(git config "core.sed$n")" = "s$n" ] && kept=$((kept + 1))
done
attempt H1 "linux_bwrap: 20 host git config and sed -i on .git/config during a run: every change kept ($kept of 20)" \
	test "$kept" = 20
attempt H1 "linux_bwrap: ... and nothing reported for them" \
	sh -c '! grep -q deny "$1"' _ "$WORK/bg.out"

# host changes in quick succession: git remote add, git branch
# --set-upstream-to and git config replace .git/config several times
# within milliseconds, and a newer file takes the name before srt covered
# the older one. Each file is judged at its own rename: all kept, nothing
# reported (before: 0 of 20 rounds kept, 33 reports)
cd "$WORK" && rm -rf "$P" && mkdir -p "$P" && cd "$P" && git init -q . &&
	git -c user.email=a@b -c user.name=a commit -q --allow-empty -m x
( trap - EXIT; exec timeout -k 5 300 "$SRT" --backend="$BW" -s "$S" -c "touch started; while [ ! -e stop ]; do sleep 0.05; done" \
	>"$WORK/bg.out" 2>&1 </dev/null ) &
pid=$!
wait_for "$P/started" 100
for n in $(seq 1 20); do
	git remote add "r$n" "https://example.invalid/r$n.git"
	git branch -q "b$n"
	git branch -q --set-upstream-to=main "b$n" 2>/dev/null || git config "branch.b$n.merge" refs/heads/main
	git config "host.q$n" "v$n"
done
touch "$P/stop"; wait "$pid"
grep 'deny write' "$WORK/bg.out" | sed 's/^/# /'
kept=0
for n in $(seq 1 20); do
	[ "$(git config "remote.r$n.url")" = "https://example.invalid/r$n.git" ] && [ "$(git config "host.q$n")" = "v$n" ] &&
		[ -n "$(git config "branch.b$n.merge")" ] && kept=$((kept + 1))
done
attempt H1 "linux_bwrap: 20 rounds of host git commands back to back on .git/config: every change kept ($kept of 20)" \
	test "$kept" = 20
attempt H1 "linux_bwrap: ... and nothing reported for them ($(grep -c 'deny write' "$WORK/bg.out") reports)" \
	sh -c '! grep -q deny "$1"' _ "$WORK/bg.out"
echo "1..$_tap_n"
