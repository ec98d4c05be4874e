#!/bin/sh
# git over smart HTTP through the sandbox's proxy with the `rules` filter:
# fetches and clones (GET info/refs, POST git-upload-pack) are allowed, a
# push (POST .../git-receive-pack) is denied with the rule's status, except
# to the one repository a rule names (open.git), where it lands. The
# server is git's own http-backend on loopback, run by
# tests/helpers/git-http.py, which accepts pushes, so a push the filter
# let through would land: the test asserts on the server's request log and
# on the bare repository on the host, not only on git's exit status.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/net-lib.sh"
plan 10

BACKEND_CGI=
for d in "$(git --exec-path 2>/dev/null)" /usr/lib/git-core /usr/libexec/git-core; do
	[ -n "$d" ] && [ -x "$d/git-http-backend" ] && { BACKEND_CGI=$d/git-http-backend; break; }
done
if ! command -v bwrap >/dev/null 2>&1 || ! command -v git >/dev/null 2>&1 || [ ! -x "$PY" ]; then
	for i in $(seq 10); do skip "bwrap, git or python3 missing"; done
	exit 0
fi
if [ -z "$BACKEND_CGI" ]; then
	for i in $(seq 10); do skip "git http-backend missing (not in git --exec-path, /usr/lib/git-core or /usr/libexec/git-core)"; done
	exit 0
fi

# the server's bare repository, seeded on the host, accepting pushes
G="git -c user.name=srt-test -c user.email=srt-test@localhost -c init.defaultBranch=main"
mkdir -p "$WORK/srv" "$WORK/seed"
$G init -q --bare "$WORK/srv/repo.git" && git -C "$WORK/srv/repo.git" config http.receivepack true &&
	$G init -q "$WORK/seed" && echo "seeded by the host" > "$WORK/seed/README" &&
	git -C "$WORK/seed" add README && $G -C "$WORK/seed" commit -q -m seed &&
	git -C "$WORK/seed" push -q "$WORK/srv/repo.git" HEAD:refs/heads/main ||
	{ echo "Bail out! cannot seed the server's repository"; exit 1; }
# the named repository, the only one a push may reach
$G init -q --bare "$WORK/srv/open.git" && git -C "$WORK/srv/open.git" config http.receivepack true &&
	git -C "$WORK/seed" push -q "$WORK/srv/open.git" HEAD:refs/heads/main ||
	{ echo "Bail out! cannot seed the named repository"; exit 1; }
before=$(git -C "$WORK/srv/repo.git" for-each-ref)
open_before=$(git -C "$WORK/srv/open.git" rev-parse main)
objs_before=$(find "$WORK/srv/repo.git/objects" -type f | sort | md5sum)

: > "$WORK/git.log"
"$PY" "$top_srcdir/tests/helpers/git-http.py" "$BACKEND_CGI" "$WORK/srv" "$WORK/git.port" "$WORK/git.log" &
NET_PIDS="$NET_PIDS $!"
for i in $(seq 200); do
	[ -s "$WORK/git.port" ] && break
	sleep 0.1
done
[ -s "$WORK/git.port" ] || { echo "Bail out! cannot start the git http server"; exit 1; }
U="http://localhost:$(cat "$WORK/git.port")/repo.git"

RULES='{"plugin":"rules","config":{"rules":[{"action":"deny","methods":["TRACE","TRACK"]},{"action":"allow","host":"localhost","methods":["POST"],"path":"/open.git/git-receive-pack"},{"action":"deny","host":"localhost","path":"*/git-receive-pack","status":403,"reason":"git push is not allowed"},{"action":"allow","host":"localhost","methods":["GET","POST"]}]}}'
S=$(net_settings "[\"localhost:$(cat "$WORK/git.port")\"]" '[]' "\"filters\":[$RULES]")

# inside the sandbox: git's libcurl through srt's proxy, loopback included;
# generous limits, the machine may be loaded
GITP='unset NO_PROXY no_proxy; export GIT_TERMINAL_PROMPT=0 GIT_CONFIG_NOSYSTEM=1; git -c http.proxy="$HTTP_PROXY" -c http.lowSpeedLimit=1 -c http.lowSpeedTime=20 -c user.name=srt-test -c user.email=srt-test@localhost'
run() { timeout -k 5 60 "$SRT" --backend="$BACKEND" --settings "$S" -c "$1"; }

run "$GITP clone -q $U clone && cat clone/README" > "$WORK/clone.out" 2> "$WORK/clone.err"
rc=$?
check "clone through the proxy with the rules filter succeeds (exit $rc)" [ $rc = 0 ]
check "the clone has the server's content" grep -q "seeded by the host" "$WORK/clone.out"
sed 's/^/# clone: /' "$WORK/clone.err"

run "cd clone && echo pushed > pushed && $GITP add pushed && $GITP commit -q -m push && $GITP push origin HEAD:refs/heads/main" \
	> "$WORK/push.out" 2> "$WORK/push.err"
rc=$?
check "push is refused (exit $rc)" [ $rc != 0 ]
check "with the rule's status 403" grep -q 403 "$WORK/push.err"
check "the violation names the filter and its reason" \
	grep -q "request filter rules: git push is not allowed" "$WORK/push.err"
check "the server never saw POST git-receive-pack" sh -c "! grep -q 'POST .*/git-receive-pack' '$WORK/git.log'"
check "the server's refs are unchanged" [ "$(git -C "$WORK/srv/repo.git" for-each-ref)" = "$before" ]
check "and no object was added" [ "$(find "$WORK/srv/repo.git/objects" -type f | sort | md5sum)" = "$objs_before" ]
sed 's/^/# push: /' "$WORK/push.err" | head -20
sed 's/^/# server: /' "$WORK/git.log"

# the named repository: the same push, allowed by the rule before the deny
OU="http://localhost:$(cat "$WORK/git.port")/open.git"
run "$GITP clone -q $OU oclone && cd oclone && echo pushed > pushed && $GITP add pushed && $GITP commit -q -m push && $GITP push origin HEAD:refs/heads/main" \
	> "$WORK/opush.out" 2> "$WORK/opush.err"
rc=$?
check "a push to the repository a rule names goes through (exit $rc)" [ $rc = 0 ]
check "and lands in that repository on the host" \
	[ "$(git -C "$WORK/srv/open.git" rev-parse main)" != "$open_before" -a \
	  "$(git -C "$WORK/srv/open.git" show main:pushed 2>/dev/null)" = pushed ]
sed 's/^/# named push: /' "$WORK/opush.err" | head -20
