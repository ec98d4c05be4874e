#!/bin/bash
# Escape class: secrets in the environment and in argv
# (F22). An env var the settings deny must not reach the command (or
# srt refuses to run); neither that secret nor the per-run proxy token
# may appear in any process's argv on the host while the sandbox runs
# (/proc/*/cmdline is world-readable); another host user cannot read the
# token from any process's environ; srt's violation log and debug output
# carry no token.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
SECRET="CANARY-ENV-$$-$RANDOM"
N=$(fsjson net "$S0_FS" '{"allowedDomains":["example.com"],"deniedDomains":[]}')

# F22: an env var denied by the settings
C=$(fsjson cred "$S0_FS")
sed -i 's/^{/{"credentials":{"envVars":[{"name":"AWS_SECRET_ACCESS_KEY","mode":"deny"}]},/' "$C"
rm -f "$P/ran"
AWS_SECRET_ACCESS_KEY="$SECRET" srt__run -s "$C" -c 'touch ran; env; cat /proc/self/environ /proc/*/cmdline 2>/dev/null' >"$WORK/out" 2>&1; rc=$?
if [ -e "$P/ran" ]; then
	attempt F22 "denied env var: absent inside the sandbox" sh -c "! grep -q '$SECRET' '$WORK/out'"
else
	attempt F22 "denied env var: srt refused to run rather than pass it (rc=$rc)" test "$rc" = 1
fi

# while a sandboxed command runs: scan every host argv for the secret and
# the token; note which host processes hold the token in their environ
AWS_SECRET_ACCESS_KEY="$SECRET" srt__bg -s "$N" --violations-log "$WORK/viol.log" -d -c \
	'printf "%s\n" "$HTTPS_PROXY" > url; curl -s --max-time 5 -o /dev/null http://denied.test/ 2>/dev/null; touch up; sleep 3'
R=$!
wait_for "$P/up" 100
tok=$(sed -n 's|^http://[^:]*:\([0-9a-f]*\)@.*|\1|p' "$P/url" 2>/dev/null)
scan=$(SRT_TOK="$tok" SRT_SEC="$SECRET" "$PY" -c '
import os
tok = os.environ["SRT_TOK"].encode()
sec = os.environ["SRT_SEC"].encode()
me = str(os.getpid())
argv_hits, env_pids = [], []
for pid in os.listdir("/proc"):
    if not pid.isdigit() or pid == me:
        continue
    try:
        with open("/proc/%s/cmdline" % pid, "rb") as f:
            a = f.read()
        if (tok and tok in a) or sec in a:
            argv_hits.append(pid + ":" + a.split(b"\0")[0].decode(errors="replace"))
        with open("/proc/%s/environ" % pid, "rb") as f:
            if tok and tok in f.read():
                env_pids.append(pid)
    except OSError:
        pass
print("argv", len(argv_hits), " ".join(argv_hits))
print("envpids", " ".join(env_pids))
')
attempt F22 "the run had a token to look for (${#tok} hex digits)" test "${#tok}" = 32
attempt F22 "no host argv holds the proxy token or the env secret ($(echo "$scan" | sed -n 's/^argv //p'))" \
	sh -c "printf '%s\n' \"\$1\" | grep -q '^argv 0'" _ "$scan"
envpids=$(echo "$scan" | sed -n 's/^envpids //p')
attempt F22 "srt's own environ does not hold the token" sh -c "! printf ' %s ' '$envpids' | grep -q ' $R '"
other=$(for u in "${SRT_TEST_USER:-}" srtuser srt-test; do [ -n "$u" ] && [ "$u" != root ] && id "$u" >/dev/null 2>&1 && echo "$u" && break; done)
if is_root && [ -n "$other" ] && [ -n "$envpids" ]; then
	readable=$(su "$other" -s /bin/sh -c "for p in $envpids; do cat /proc/\$p/environ 2>/dev/null; done" | tr '\0' '\n' | grep -c "$tok")
	attempt F22 "another host user cannot read the token from any environ ($readable hits)" test "$readable" = 0
else
	skip "F22 other-user environ check needs root and an unprivileged user (srtuser or srt-test)"
fi
wait "$R" 2>/dev/null
attempt F22 "the violation log exists and holds no token" sh -c "[ -s '$WORK/viol.log' ] && ! grep -q '$tok' '$WORK/viol.log'"
attempt F22 "srt's debug output holds no token" sh -c "[ -s '$WORK/bg.out' ] && ! grep -q '$tok' '$WORK/bg.out'"
attempt F22 "the violation log is not world-readable ($(stat -c %a "$WORK/viol.log" 2>/dev/null))" \
	sh -c "[ \$(( 0\$(stat -c %a '$WORK/viol.log') & 04 )) = 0 ]"

echo "1..$_tap_n"
