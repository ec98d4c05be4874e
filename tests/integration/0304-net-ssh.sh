#!/bin/sh
# ssh through the proxy with the GIT_SSH_COMMAND srt sets (srt-connect as
# ProxyCommand, no socat or nc): an allowed host is reached, a denied one
# is refused before anything is sent (N15).
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/net-lib.sh"
plan 5

if ! command -v bwrap >/dev/null 2>&1 || ! command -v ssh >/dev/null 2>&1; then
	for i in $(seq 5); do skip "bwrap or ssh missing"; done
	exit 0
fi
net_server ssh SSHD
S=$(net_settings "[\"127.0.0.1:$SSHD_PORT\",\"github.com\"]" '["evil.test"]')
SSHOPTS="-F /dev/null -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o ConnectTimeout=5"
srt__run --settings "$S" -c "
	case \"\$GIT_SSH_COMMAND\" in *srt-connect*) echo has-connect;; esac
	eval \"\$GIT_SSH_COMMAND $SSHOPTS -p $SSHD_PORT git@127.0.0.1 true\"
	echo ssh-allowed=\$?
	eval \"\$GIT_SSH_COMMAND $SSHOPTS git@evil.test true\"
	echo ssh-denied=\$?" >"$WORK/out" 2>"$WORK/err"
check "GIT_SSH_COMMAND uses srt-connect" grep -q '^has-connect' "$WORK/out"
check "N15: ssh reached the allowed server through the proxy" grep -q '^client SSH-2.0-' "$SSHD_LOG"
check "N15: ssh to a denied host fails" grep -q '^ssh-denied=255' "$WORK/out"
check "N15: srt-connect says the proxy refused it" grep -q 'srt-connect: the proxy refused evil.test:22: HTTP/1.1 403' "$WORK/err"
check "N15: only the allowed connection reached a server" [ "$(count_lines . "$SSHD_LOG")" = 1 ]
