#!/bin/bash
# A system call that fails for a reason other than the absence of what it
# names (out of descriptors, out of memory, an I/O error) says nothing of
# what the sandbox must protect: srt stops the run, naming what failed, and
# never takes the failure for an empty directory or an empty file. A shim
# preloaded into srt makes one kind of call fail with EMFILE or EIO; each
# route below once ran the command with less protection, srt exiting 0
# (red team): the write root's rc files and hooks writable, a repository
# made in the run left unguarded, a masked credentials file shown as it is.
. "${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/lib.sh"

plan 31
need_bwrap_sandbox

cat > "$WORK/fail.c" <<'C'
/* FAIL_NAME: the path (open) or name (openat) whose opens fail with
 * EMFILE; FAIL_FLAGS: only opens with exactly these flags (hex);
 * FAIL_READ=1: the open succeeds and its first read fails with EIO;
 * FAIL_STAT: the path (stat, lstat) or name (fstatat) whose stats fail
 * with EIO */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int read_fd = -1;

static int fails(const char *p, int flags)
{
	const char *n = getenv("FAIL_NAME"), *f = getenv("FAIL_FLAGS");

	if (!n || !p || strcmp(p, n))
		return 0;
	if (f && *f && strtol(f, NULL, 16) != (flags & ~0100000 /* O_LARGEFILE */))
		return 0;
	return 1;
}

static int opened(const char *p, int flags, int fd)
{
	if (fd >= 0 && getenv("FAIL_READ") && fails(p, flags))
		read_fd = fd;
	return fd;
}

#define OPEN_AS(sym, ...) \
	static int (*real)(); \
	mode_t m = 0; \
	if (flags & (O_CREAT | O_TMPFILE)) { \
		va_list ap; \
		va_start(ap, flags); \
		m = va_arg(ap, mode_t); \
		va_end(ap); \
	} \
	if (!real) \
		real = (int (*)())dlsym(RTLD_NEXT, sym); \
	if (!getenv("FAIL_READ") && fails(p, flags)) { \
		errno = EMFILE; \
		return -1; \
	} \
	return opened(p, flags, real(__VA_ARGS__, m));

int open(const char *p, int flags, ...) { OPEN_AS("open", p, flags) }
int open64(const char *p, int flags, ...) { OPEN_AS("open64", p, flags) }
int openat(int d, const char *p, int flags, ...) { OPEN_AS("openat", d, p, flags) }
int openat64(int d, const char *p, int flags, ...) { OPEN_AS("openat64", d, p, flags) }

static int stat_fails(const char *p)
{
	const char *n = getenv("FAIL_STAT");

	if (n && p && !strcmp(p, n)) {
		errno = EIO;
		return 1;
	}
	return 0;
}

#define STAT_AS(sym, type, ...) \
	static int (*real)(); \
	if (!real) \
		real = (int (*)())dlsym(RTLD_NEXT, sym); \
	return stat_fails(p) ? -1 : real(__VA_ARGS__);

int stat(const char *p, struct stat *st) { STAT_AS("stat", struct stat, p, st) }
int lstat(const char *p, struct stat *st) { STAT_AS("lstat", struct stat, p, st) }
int fstatat(int d, const char *p, struct stat *st, int f) { STAT_AS("fstatat", struct stat, d, p, st, f) }
int stat64(const char *p, struct stat64 *st) { STAT_AS("stat64", struct stat64, p, st) }
int lstat64(const char *p, struct stat64 *st) { STAT_AS("lstat64", struct stat64, p, st) }
int fstatat64(int d, const char *p, struct stat64 *st, int f) { STAT_AS("fstatat64", struct stat64, d, p, st, f) }

ssize_t read(int fd, void *buf, size_t n)
{
	static ssize_t (*real)(int, void *, size_t);

	if (!real)
		real = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	if (fd >= 0 && fd == read_fd) {
		read_fd = -1;
		errno = EIO;
		return -1;
	}
	return real(fd, buf, n);
}
C
if ! cc -shared -fPIC -o "$WORK/fail.so" "$WORK/fail.c" -ldl 2>"$WORK/cc.err"; then
	for _ in $(seq 31); do not_ok "the failing shim builds ($(head -c 200 "$WORK/cc.err"))"; done
	exit 0
fi
pre="$WORK/fail.so"
asan=$(ldd "$SRT" 2>/dev/null | awk '/libasan/ { print $3 }')
[ -n "$asan" ] && pre="$asan $pre"

P="$WORK/proj"
cd "$P" || exit 1
git init -q . && git init -q sub && git config core.hooksPath githooks
mkdir -p githooks
echo orig > .bashrc
S=$(settings '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}}')
ATTACK="echo pwn >> .bashrc; echo pwn > githooks/pre-commit; echo pwn > sub/.git/hooks/pre-commit; echo pwn > .git/hooks/pre-commit; echo ran > ran"
untouched() {
	[ "$(cat .bashrc)" = orig ] && [ ! -e githooks/pre-commit ] && [ ! -e sub/.git/hooks/pre-commit ] &&
		[ ! -e .git/hooks/pre-commit ]
}
ran_untouched() { [ -e ran ] && untouched; }
none_written() { [ ! -e ran ] && untouched; }
# failing CASE NAME FLAGS MESSAGE: the attack with NAME's opens failing;
# srt must stop (MESSAGE in its words), the command must not run, and
# every protected file stays as it was
failing() {
	local out rc
	rm -f ran githooks/pre-commit sub/.git/hooks/pre-commit .git/hooks/pre-commit
	echo orig > .bashrc
	out=$(FAIL_NAME=$2 FAIL_FLAGS=$3 LD_PRELOAD="$pre" srt__run -s "$S" -c "$ATTACK" 2>&1 </dev/null); rc=$?
	check "$1: srt stops, saying what failed (rc=$rc: $(grep -v '^srt:   ' <<<"$out" | tail -n1 | head -c 250))" \
		test "$rc" != 0 -a -n "$(grep -e "$4" <<<"$out")"
	check "$1: nothing ran and nothing protected was written" none_written
}

# control: without a failure the attack is refused file by file, and runs
rm -f ran
out=$(srt__run -s "$S" -c "$ATTACK" 2>&1 </dev/null)
check "control: the attack runs and writes none of the protected files" ran_untouched

# 2-3: the write root itself (the mandatory deny scan's open of it)
failing "the write root cannot be opened for the scan" "$P" 90000 'mandatory deny scan of .*Too many open files'
# 4-5: a directory inside it (the repository sub/)
failing "a directory in the write root cannot be opened" sub b0000 'mandatory deny scan of .*sub.*Too many open files'
# 6-7: a repository's config (core.hooksPath is read from it)
failing "a repository's config cannot be opened" config "" 'mandatory deny scan of .*config.*Too many open files\|git guard'
# 8-9: the git guard's reference to the write root
failing "the git guard cannot open the write root" "$P" 290000 'git guard: cannot watch a write root'

# 10-13: a hard link in the write root to a file of the denied ~/.ssh:
# the denied directory cannot be listed for the files whose other names
# must be hidden (the mandatory scan's open, then the mounts' check of the
# links). srt stops; the link never shows the secret (red team: both
# opens failing read it through the link, srt exiting 0).
ln "$HOME/.ssh/id_canary" "$P/hl"
for step in "the mandatory scan:90000:mandatory deny scan of .*ssh.*Too many open files" \
	"the check of the links:b0000:cannot list .*ssh.* for other names (hard links) of its files: Too many open files"; do
	IFS=: read -r what flags msg <<<"$step"
	out=$(FAIL_NAME="$HOME/.ssh" FAIL_FLAGS=$flags LD_PRELOAD="$pre" srt__run -s "$S" -c "cat hl" 2>&1 </dev/null); rc=$?
	check "the denied ~/.ssh cannot be listed for $what: srt stops, saying so (rc=$rc: $(grep -v '^srt:   ' <<<"$out" | tail -n1 | head -c 250))" \
		test "$rc" != 0 -a -n "$(grep -e "$msg" <<<"$out")"
	check "the denied ~/.ssh cannot be listed for $what: the link never shows the secret" no_canary <(printf '%s\n' "$out")
done
rm -f "$P/hl"

# 14-16: a masked credentials file whose read fails: denied, never shown
echo "token: ghp_$CANARY" > "$WORK/cred.yml"
C=$(printf '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":["."],"denyWrite":[]},"credentials":{"allowPlaintextInject":true,"files":[{"path":"%s","mode":"mask"}]}}' "$WORK/cred.yml" >"$WORK/cred.json"; echo "$WORK/cred.json")
out=$(srt__run -s "$C" -c "cat '$WORK/cred.yml'" 2>&1 </dev/null)
check "control: the masked file reads as its copy ($(head -c 60 <<<"$out"))" test -z "$(grep -F "$CANARY" <<<"$out")" -a -n "$(grep 'fake_' <<<"$out")"
if [ -n "$asan" ]; then
	skip "a masked credentials file whose read fails: in the sanitized build the shim's read() is not reached (the read succeeds, seen in CI), so no failure can be injected; the plain build runs it"
	skip "a masked credentials file whose read fails: in the sanitized build the shim's read() is not reached (the read succeeds, seen in CI), so no failure can be injected; the plain build runs it"
else
	out=$(FAIL_NAME="$WORK/cred.yml" FAIL_READ=1 LD_PRELOAD="$pre" srt__run -s "$C" -c "cat '$WORK/cred.yml'" 2>&1 </dev/null)
	check "a masked credentials file whose read fails: its content never reaches the command" no_canary <(printf '%s\n' "$out")
	check "a masked credentials file whose read fails: srt says it denied it ($(grep 'credentials.files' <<<"$out" | head -c 200))" \
		test -n "$(grep 'cannot be read (a read failed); it is denied to the sandbox instead' <<<"$out")"
fi

# 17-18: a stat that fails with EIO where the scan looks for a protected
# name at its deepest level (a/b/.bashrc, depth 3 by default): not taken
# for an absent file (red team: the file was written)
mkdir -p "$P/a/b" && echo orig > "$P/a/b/.bashrc"
out=$(FAIL_STAT=b/.bashrc LD_PRELOAD="$pre" srt__run -s "$S" -c "echo pwn >> a/b/.bashrc; echo ran > ran" 2>&1 </dev/null); rc=$?
check "a stat of a protected name fails: srt stops, saying so (rc=$rc: $(grep -v '^srt:   ' <<<"$out" | tail -n1 | head -c 250))" \
	test "$rc" != 0 -a -n "$(grep 'mandatory deny scan of .*bashrc.*Input/output error' <<<"$out")"
check "a stat of a protected name fails: nothing ran, the file is as it was" \
	test ! -e ran -a "$(cat "$P/a/b/.bashrc")" = orig
rm -rf "$P/a"

# 19-20: $HOME's .bashrc cannot be statted, and the write root holds a
# hard link of it: its other names must still be looked for (red team:
# the link was written, and with it ~/.bashrc)
echo orig > "$HOME/.bashrc"
ln "$HOME/.bashrc" "$P/hb"
out=$(FAIL_STAT="$HOME/.bashrc" LD_PRELOAD="$pre" srt__run -s "$S" -c "echo pwn >> hb; echo ran > ran" 2>&1 </dev/null); rc=$?
check "~/.bashrc cannot be statted, a link of it in the root: srt stops, saying so (rc=$rc: $(grep -v '^srt:   ' <<<"$out" | tail -n1 | head -c 250))" \
	test "$rc" != 0 -a -n "$(grep 'stat of .*bashrc: Input/output error' <<<"$out")"
check "~/.bashrc cannot be statted: nothing ran, ~/.bashrc is as it was" test ! -e ran -a "$(cat "$HOME/.bashrc")" = orig
rm -f "$P/hb" "$HOME/.bashrc"

# 21-22: no fault at all: a run of the command makes the write root
# unreadable to its owner (mode 0100), and the next run's scan cannot list
# it. The command could chmod it back and reach what is there, so the scan
# must not take it for empty (red team: the second run wrote .bashrc and
# the hooks): it holds the directory read-only whole, so the command can
# neither chmod it nor write below it. Root lists every directory, so
# this is the unprivileged case.
if is_root; then
	skip "an unreadable write root of one's own: root reads every directory (run as an unprivileged user in CI)"
	skip "an unreadable write root of one's own: root reads every directory (run as an unprivileged user in CI)"
else
	rm -f ran .git/hooks/pre-commit
	echo orig > .bashrc
	srt__run -s "$S" -c "chmod 100 ." </dev/null >/dev/null 2>&1
	srt__run -s "$S" -c "chmod 755 .; $ATTACK" </dev/null >/dev/null 2>&1
	mode=$(stat -c %a "$P")
	chmod 755 "$P"
	check "a write root its owner cannot list: the next run cannot chmod it back (mode $mode)" test "$mode" = 100
	check "a write root its owner cannot list: nothing protected was written" untouched
fi

# 23-24: the same with a directory inside the root that its owner can
# list but not search (mode 0600): names below it cannot be looked at,
# and a failure there looks like absence (red team, round 3: the second
# run wrote sub/deeper/.bashrc and its hooks). It is held read-only whole.
if is_root; then
	skip "a directory of one's own that cannot be searched: root searches every directory (run as an unprivileged user in CI)"
	skip "a directory of one's own that cannot be searched: root searches every directory (run as an unprivileged user in CI)"
else
	mkdir -p "$P/sub2/deeper" && git init -q "$P/sub2/deeper" && echo orig > "$P/sub2/deeper/.bashrc"
	rm -f ran
	srt__run -s "$S" -c "chmod 0600 sub2" </dev/null >/dev/null 2>&1
	srt__run -s "$S" -c "chmod 0700 sub2; echo pwn >> sub2/deeper/.bashrc; echo pwn > sub2/deeper/.git/hooks/pre-commit; echo ran > ran; chmod 0600 sub2" </dev/null >/dev/null 2>&1
	mode=$(stat -c %a "$P/sub2")
	chmod 0700 "$P/sub2"
	check "a directory of its own that cannot be searched: the command cannot chmod it (mode $mode)" test "$mode" = 600
	check "a directory of its own that cannot be searched: nothing below it written, the rest of the root writable" \
		test -e ran -a "$(cat "$P/sub2/deeper/.bashrc")" = orig -a ! -e "$P/sub2/deeper/.git/hooks/pre-commit"
	rm -rf "$P/sub2"
fi

# 25-26: a repository in a directory named like node_modules in another
# case (Node_Modules): the scan skipped it as node_modules while the git
# guard took it for an ordinary directory, and its hooks stayed writable
# (red team, round 3). Only the name node_modules itself is skipped now.
git init -q "$P/Node_Modules"
rm -f ran
out=$(srt__run -s "$S" -c "echo pwn > Node_Modules/.git/hooks/pre-commit; echo ran > ran" 2>&1 </dev/null); rc=$?
check "a repository in Node_Modules: the command ran (rc=$rc)" test -e ran
check "a repository in Node_Modules: its hooks are protected" test ! -e "$P/Node_Modules/.git/hooks/pre-commit"
rm -rf "$P/Node_Modules"

# 27-29: a denyRead entry with glob characters that also names an existing
# file (secret[1].txt) is applied as that path too, which srt decides by
# looking the name up. A lookup that failed was taken for "no such file":
# only the pattern was applied, which does not match the name itself, and
# the command read the file (red team, 2026-12-05). An I/O error now stops
# the run; a name srt may not look at is denied as that path all the same.
mkdir -p "$P/g" && cp "$HOME/.ssh/id_canary" "$P/g/secret[1].txt"
SG=$(settings "{\"network\":{\"allowedDomains\":[],\"deniedDomains\":[]},\"filesystem\":{\"denyRead\":[\"$P/g/secret[1].txt\",\"$P/priv/key[1].txt\"],\"allowWrite\":[\".\"],\"denyWrite\":[]}}")
rm -f ran
out=$(FAIL_STAT="$P/g/secret[1].txt" LD_PRELOAD="$pre" srt__run -s "$SG" -c "cat 'g/secret[1].txt'; echo ran > ran" 2>&1 </dev/null); rc=$?
check "the name a glob denial also names cannot be looked up: srt stops, saying so (rc=$rc: $(grep -v '^srt:   ' <<<"$out" | tail -n1 | head -c 250))" \
	test "$rc" != 0 -a ! -e ran -a -n "$(grep 'denyRead\[0\]: cannot tell whether .*secret\[1\].txt.* exists.*Input/output error' <<<"$out")"
check "the name a glob denial also names cannot be looked up: its content never reaches the command" no_canary <(printf '%s\n' "$out")
# no fault: the file sits in a directory of the user's without search
# permission (mode 0600) inside the write root; srt's lookup fails with
# EACCES, and the command can chmod the directory. Root searches every
# directory, so this is the unprivileged case.
if is_root; then
	skip "a glob denial's name in a directory of one's own that cannot be searched: root searches every directory (run as an unprivileged user in CI)"
else
	mkdir -p "$P/priv" && cp "$HOME/.ssh/id_canary" "$P/priv/key[1].txt" && chmod 0600 "$P/priv"
	out=$(srt__run -s "$SG" -c "chmod 0700 priv; cat 'priv/key[1].txt'" 2>&1 </dev/null)
	chmod 0700 "$P/priv"
	check "a glob denial's name in a directory of one's own that cannot be searched: never shown ($(tail -n1 <<<"$out" | head -c 200))" \
		no_canary <(printf '%s\n' "$out")
	rm -rf "$P/priv"
fi
rm -rf "$P/g"

# 30-31: #23-24 under linux-landlock, whose write roots are Landlock rules
# and a write supervisor rather than mounts: the directory of one's own
# that cannot be searched is held read-only whole there too.
if is_root; then
	skip "linux-landlock, a directory of one's own that cannot be searched: root searches every directory (run as an unprivileged user in CI)"
	skip "linux-landlock, a directory of one's own that cannot be searched: root searches every directory (run as an unprivileged user in CI)"
elif [ ! -e "$BACKEND_LL" ]; then
	skip "linux-landlock, a directory of one's own that cannot be searched: the linux-landlock module is not built"
	skip "linux-landlock, a directory of one's own that cannot be searched: the linux-landlock module is not built"
else
	mkdir -p "$P/sub3/deeper" && git init -q "$P/sub3/deeper" && echo orig > "$P/sub3/deeper/.bashrc"
	rm -f ran
	ll() { timeout -k 5 30 "$SRT" --backend="$BACKEND_LL" "$@"; }
	ll -s "$S" -c "chmod 0600 sub3" </dev/null >/dev/null 2>&1
	out=$(ll -s "$S" -c "chmod 0700 sub3; echo pwn >> sub3/deeper/.bashrc; echo pwn > sub3/deeper/.git/hooks/pre-commit; echo ran > ran; chmod 0600 sub3" </dev/null 2>&1)
	mode=$(stat -c %a "$P/sub3")
	chmod 0700 "$P/sub3"
	if grep -qi 'landlock.*\(not supported\|unavailable\|cannot run\)' <<<"$out" && [ ! -e ran ]; then
		skip "linux-landlock, a directory of one's own that cannot be searched: linux-landlock cannot run here ($(tail -n1 <<<"$out" | head -c 150))"
		skip "linux-landlock, a directory of one's own that cannot be searched: linux-landlock cannot run here"
	else
		check "linux-landlock, a directory of its own that cannot be searched: the command cannot chmod it (mode $mode)" test "$mode" = 600
		check "linux-landlock, a directory of its own that cannot be searched: nothing below it written, the rest of the root writable" \
			test -e ran -a "$(cat "$P/sub3/deeper/.bashrc")" = orig -a ! -e "$P/sub3/deeper/.git/hooks/pre-commit"
	fi
	rm -rf "$P/sub3"
fi
