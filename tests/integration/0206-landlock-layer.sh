#!/bin/sh
# The Landlock layer under linux-bwrap's mounts: a command allowed to make
# namespaces (allowNestedUserNamespaces) that tries to unmount or cover the
# tmpfs hiding a denied directory still cannot read what it hides, writes
# outside the roots still fail after a remount attempt, and what the mounts
# allow (the write roots, TMPDIR, /dev, /proc, the proxy) still works.
#
# Control: the mount(2) probe is what tells the layer apart. Without it a
# command in its own user+mount namespace may mount a tmpfs (the kernel's
# locks only protect the mounts bwrap made); with it Landlock refuses every
# mount operation. A policy the planner refuses (a denied file with a second
# hard link) runs without the layer and shows the probe succeeding there.
# The attack against mounts that can be removed, with and without the
# layer, is in tests/unit/test-landlock-layer.c. unshare --keep-caps: the
# command keeps its capabilities of the new namespace across exec (a uid-0
# caller cannot map itself, the kernel wants CAP_SETFCAP for that).
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/net-lib.sh"
plan 18

if ! command -v bwrap >/dev/null 2>&1 || ! command -v unshare >/dev/null 2>&1; then
	for i in $(seq 18); do skip "bwrap or unshare missing"; done
	exit 0
fi
if ! unshare --help 2>&1 | grep -q -- --keep-caps; then
	for i in $(seq 18); do skip "unshare has no --keep-caps (util-linux < 2.38)"; done
	exit 0
fi
# DAC must not be what refuses: the nested namespace maps nobody, so the
# secret is world-readable here and only the sandbox hides it
chmod 755 "$HOME/.ssh"
chmod 644 "$HOME/.ssh/id_canary"
mkdir -p "$WORK/proj/m"
S=$(settings '{"allowNestedUserNamespaces":true,"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}}')

ex=$(srt__run --settings "$S" --explain -- true 2>&1)
if ! srt__run --settings "$S" -- true >/dev/null 2>&1; then
	for i in $(seq 18); do skip "bwrap cannot run here"; done
	exit 0
fi
if printf '%s\n' "$ex" | grep -q '^landlock layer: not applied: the kernel offers no Landlock'; then
	ok "--explain says why the layer is skipped: $(printf '%s\n' "$ex" | grep '^landlock layer' | head -1)"
	for i in $(seq 17); do skip "the kernel offers no Landlock"; done
	exit 0
fi
n=$(printf '%s\n' "$ex" | sed -n 's/^landlock layer: applied: \([0-9][0-9]*\) rules.*/\1/p')
check "--explain: the layer is applied with its rule count (${n:-none})" test "${n:-0}" -gt 0
check "the plan goes to the helper as a descriptor" \
	sh -c 'printf "%s\n" "$1" | grep -q -- "--landlock-plan-fd [0-9]"' sh "$ex"

# the attack: a new user+mount namespace, unmount or cover the mask, read
out=$(srt__run --settings "$S" -- unshare -Um --keep-caps --propagation unchanged sh -c '
	umount "$1" 2>&1; echo "umount=$?"
	umount -l "$1" 2>&1; echo "lazy=$?"
	mount --bind /usr "$1" 2>&1; echo "bind=$?"
	cat "$1/id_canary"' sh "$HOME/.ssh" 2>&1)
case $out in
*"$CANARY"*) not_ok "nested namespace attack: the secret was read" ;;
*) ok "nested namespace attack: the secret stays unreadable" ;;
esac
check "nested namespace attack: umount is refused" \
	sh -c 'printf "%s\n" "$1" | grep -q "^umount=[1-9]" && printf "%s\n" "$1" | grep -q "^lazy=[1-9]"' sh "$out"
out=$(srt__run --settings "$S" -- unshare -Um --keep-caps --propagation unchanged "$SYSPROBE" mount-tmpfs "$WORK/proj/m" 2>&1)
check "Landlock refuses mount(2) even in the command's own namespaces (got: $out)" \
	test "$out" = "mount-tmpfs errno=EPERM"

# the control: the same probe where the layer is not applied (a denied
# file with a second name; the name is inside the write root, where the
# mandatory walk finds and hides it: a name srt cannot find refuses the run)
echo other > "$WORK/proj/linked"
ln -f "$WORK/proj/linked" "$WORK/proj/linked2"
C=$(settings "{\"allowNestedUserNamespaces\":true,\"network\":{\"allowedDomains\":[],\"deniedDomains\":[]},\"filesystem\":{\"denyRead\":[\"$WORK/proj/linked\"],\"allowWrite\":[\".\"],\"denyWrite\":[]}}")
check "control: --explain says the layer is not applied, and why" \
	sh -c 'srt__out=$("$@" 2>&1); printf "%s\n" "$srt__out" | grep -q "^landlock layer: not applied: .*hard links"' \
	sh timeout 30 "$SRT" --backend="$BACKEND" --settings "$C" --explain -- true
out=$(srt__run --settings "$C" -- unshare -Um --keep-caps --propagation unchanged "$SYSPROBE" mount-tmpfs "$WORK/proj/m" 2>"$WORK/ll.err")
check "control: without the layer the same mount succeeds (got: $out)" test "$out" = "mount-tmpfs ok"
check "a layer the policy lost is a warning in a normal run, not only in --explain" \
	grep -q "^srt: warning: landlock layer not applied, the mounts enforce the policy alone: .*hard links" "$WORK/ll.err"
S=$(settings '{"allowNestedUserNamespaces":true,"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":[]}}')
rm -f "$WORK/proj/linked2"

# writes outside the roots after a remount attempt
srt__run --settings "$S" -- unshare -Um --keep-caps --propagation unchanged sh -c '
	mount -o remount,rw / 2>/dev/null; mount -o remount,rw "$1" 2>/dev/null
	echo pwned > "$1/outside"; echo pwned > "$2/.bashrc"' sh "$WORK" "$WORK/proj" >/dev/null 2>&1
check "remount attempt: nothing written outside the roots" test ! -e "$WORK/outside"
check "remount attempt: the mandatory deny in the root holds" \
	sh -c '! grep -q pwned "$1/.bashrc" 2>/dev/null' sh "$WORK/proj"

# what the mounts allow still works with the layer on
out=$(srt__run --settings "$S" -- sh -c '
	echo made > new.txt && mkdir -p d/e && echo x > d/e/f && mv d/e/f d/g && rm -r d/e && echo roots-ok
	echo t > "$TMPDIR/layer.$$" && cat "$TMPDIR/layer.$$" >/dev/null && rm "$TMPDIR/layer.$$" && echo tmpdir-ok
	head -c 2 /usr/bin/env >/dev/null && ls / >/dev/null && ls "$HOME" >/dev/null && echo reads-ok
	echo > /dev/null && head -c 1 /dev/urandom >/dev/null && touch /dev/shm/x && echo dev-ok
	grep -q "^Pid:" /proc/self/status && ls /proc/self/fd >/dev/null && echo proc-ok' 2>&1)
check "write roots, TMPDIR, reads, /dev and /proc work with the layer (got: $(echo $out))" \
	test "$(echo $out)" = "roots-ok tmpdir-ok reads-ok dev-ok proc-ok"
check "the write in the root reached the host" test "$(cat "$WORK/proj/new.txt" 2>/dev/null)" = made

# nested user namespaces still work (uid_map lives in the layer's /proc)
out=$(srt__run --settings "$S" -- unshare -U sh -c 'cat /proc/self/uid_map >/dev/null && echo userns-ok' 2>&1)
check "allowNestedUserNamespaces: a nested user namespace still starts (got: $out)" test "$out" = userns-ok

# the proxy through 127.0.0.1:3128 with the layer on
if command -v curl >/dev/null 2>&1; then
	net_server http WEB
	P=$(settings "{\"network\":{\"allowedDomains\":[\"127.0.0.1:$WEB_PORT\"],\"deniedDomains\":[]},$NET_FS}")
	srt__run --settings "$P" --explain -- true 2>&1 | grep -q '^landlock layer: applied' || \
		diag "the layer is not applied with the proxy settings"
	code=$(srt__run --settings "$P" -c "$CURLP -o /dev/null -w '%{http_code}' http://127.0.0.1:$WEB_PORT/layer" 2>/dev/null)
	check "the proxy works with the layer on (HTTP $code, logged on the host)" \
		sh -c 'test "$1" = 200 && grep -q "^GET /layer HTTP/1.1 host=127.0.0.1:$2 " "$3"' sh "$code" "$WEB_PORT" "$WEB_LOG"
else
	skip "curl missing"
fi

# fail closed: a plan the helper cannot apply stops it before the command
# (status 125, the step named), never a run without the layer
INIT=$INIT_HELPER
# plan_refused WHAT NAME PLAN MESSAGE: the helper given PLAN (a printf
# format) exits 125 with MESSAGE on stderr and never runs the command
plan_refused() {
	local rc
	printf "$3" > "$WORK/plan-$2"
	"$INIT" --landlock-plan-fd 3 -- touch "$WORK/ran" 3<"$WORK/plan-$2" 2>"$WORK/err"
	rc=$?
	check "$1: helper exits 125 naming the step (rc $rc: $(cat "$WORK/err"))" \
		sh -c 'test "$1" = 125 && grep -q "$4" "$2" && test ! -e "$3"' \
		sh "$rc" "$WORK/err" "$WORK/ran" "$4"
}
plan_refused "a plan the kernel cannot serve" abi \
	'srt-landlock-plan 1\0abi 3f\0fs 7fff\0net 0\0scope 0\0seccomp 0\0inet-block 0\0meta-block 0\0stdio 0\0end\0' \
	"landlock layer: landlock: the plan needs ABI 63"
plan_refused "a truncated plan" bad 'srt-landlock-plan 1\0abi 3\0fs 7fff\0end\0' \
	"landlock layer: parse plan: "

# 17-18: the layer's planner meeting a failed system call (out of
# descriptors, here on its read of the mount table; a host program
# embedding libsrt can be near its limit) is no refusal of the policy:
# the run stops, naming the layer, where it went on without the layer.
# A shim fails the first open of /proc/self/mountinfo in srt, which is the
# planner's; srt's own check of the denied paths reads it again after.
cat > "$WORK/mi.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static int failed;

static FILE *open_as(const char *fn, const char *p, const char *m)
{
	FILE *(*real)(const char *, const char *) = (FILE * (*)(const char *, const char *))dlsym(RTLD_NEXT, fn);

	if (!failed && p && !strcmp(p, "/proc/self/mountinfo")) {
		failed = 1;
		errno = EMFILE;
		return NULL;
	}
	return real(p, m);
}
FILE *fopen(const char *p, const char *m) { return open_as("fopen", p, m); }
FILE *fopen64(const char *p, const char *m) { return open_as("fopen64", p, m); }
C
if ! cc -shared -fPIC -o "$WORK/mi.so" "$WORK/mi.c" -ldl 2>"$WORK/cc.err"; then
	not_ok "the failing shim builds ($(head -c 200 "$WORK/cc.err"))"
	not_ok "the failing shim builds"
else
	pre="$WORK/mi.so"
	asan=$(ldd "$SRT" 2>/dev/null | awk '/libasan/ { print $3 }')
	[ -n "$asan" ] && pre="$asan $pre"
	rm -f "$WORK/proj/mi-ran"
	out=$(cd "$WORK/proj" && LD_PRELOAD="$pre" srt__run --settings "$S" -c "touch '$WORK/proj/mi-ran'" 2>&1 </dev/null); rc=$?
	check "the layer's planner out of descriptors: the run stops, naming the layer (rc=$rc: $(printf '%s\n' "$out" | head -c 250))" \
		test "$rc" != 0 -a -n "$(printf '%s\n' "$out" | grep 'landlock layer: .*Too many open files; the run stops')"
	check "the layer's planner out of descriptors: nothing ran" test ! -e "$WORK/proj/mi-ran"
fi
