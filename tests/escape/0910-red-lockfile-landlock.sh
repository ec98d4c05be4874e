#!/bin/bash
# Escape class H7: a write into a protected file by way of the HOST's own
# temporary file, under linux-landlock. git config (git remote, git branch
# --set-upstream-to, ...) on the host writes the new .git/config into
# .git/config.lock and renames it over .git/config. The command polls for
# .git/config.lock and, the moment it exists, opens it for writing and
# appends a long newline padding and a [core] fsmonitor section (git's own
# writes at its offsets from 0 overwrite the padding). git renames the lock
# over .git/config and the next git command on the host runs the
# fsmonitor. The supervisor must refuse the write-open of the lock of a
# protected file as it refuses the file. Five tries with one host git
# config each; asserts on the host's .git/config and a marker file.
. "$(dirname "$0")/lib.sh"
LL="$top_builddir/backends/linux-landlock/.libs/linux_landlock.so"
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
if ! out=$(timeout -k 5 60 "$SRT" --backend="$LL" -s "$S" -c 'echo alive' 2>"$WORK/err") || [ "$out" != alive ]; then
	if grep -qi landlock "$WORK/err"; then
		skip_rest 1 "linux-landlock cannot run here: $(head -1 "$WORK/err")"
		echo "1..$_tap_n"
		exit 0
	fi
	diag "$(cat "$WORK/err")"
fi
for be in "$LL"; do
	hits=0
	for n in 1 2 3 4 5; do
		try "$be" && hits=$((hits + 1))
	done
	attempt H7 \
		"linux-landlock: no fsmonitor of the command's in .git/config after the host's git config ($hits of 5 got in)" \
		test "$hits" = 0
done
echo "1..$_tap_n"
