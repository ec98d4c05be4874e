#!/bin/sh
# The Windows smoke tests, after win/build.sh: the binaries in win/out run
# under Debian's wine64. TAP on stdout, then "N passed, N failed, N skipped".
# What Wine cannot emulate (WFP, local accounts and logon, restricted
# tokens, ACL enforcement) is a skip naming that reason, never a pass;
# win/verify.ps1 checks those on a Windows machine.
#
# The native half (the plan against 26 golden settings files) is
# tests/unit/test-win-plan in make check.
set -u

here=$(cd "$(dirname "$0")" && pwd)
out=$here/out
wine=/usr/lib/wine/wine64
[ -x "$wine" ] || wine=$(command -v wine64 || command -v wine || echo /usr/lib/wine/wine64)
export WINEPREFIX=${WINEPREFIX:-/var/tmp/srt-win-prefix-$(id -u)}
export WINEDEBUG=-all
n=0 pass=0 fail=0 skip=0

ok() { # cond-status name
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		pass=$((pass + 1)); echo "ok $n - $2"
	else
		fail=$((fail + 1)); echo "not ok $n - $2"
	fi
}
skip() {
	n=$((n + 1)); skip=$((skip + 1)); echo "ok $n - $1 # SKIP $2"
}
has() { grep -qF -- "$2" "$1"; }

# one wineserver for the whole script (it stays 30 s after the last
# client) instead of one start per run
ws=$(dirname "$wine")/wineserver
[ -x "$ws" ] && "$ws" -p30 2>/dev/null || :
tmp=$(mktemp -d /tmp/srt-win-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
w() { "$wine" "$out/srt-win.exe" "$@" >"$tmp/out" 2>"$tmp/err"; }

# PE images for x86-64 (the "MZ" header and the PE machine 0x8664)
pe64() { [ "$(head -c2 "$1" 2>/dev/null)" = MZ ] && od -An -tx1 -j"$(od -An -tu4 -j60 -N4 "$1" | tr -d ' ')" -N6 "$1" | grep -q '50 45 00 00 64 86'; }
for f in srt-win.exe windows_wfp.dll spawn-test.exe loop-test.exe srt.exe libsrt-0.dll credentials.dll srt-connect.exe; do
	pe64 "$out/$f"; ok $? "F $f is an x86-64 Windows image"
done
# libsrt-0.dll exports the public API and nothing private
if command -v x86_64-w64-mingw32-objdump >/dev/null; then
	x86_64-w64-mingw32-objdump -p "$out/libsrt-0.dll" 2>/dev/null |
		sed -n '/Ordinal\/Name Pointer/,/^$/p' | grep -E '^[[:space:]]*\[ *[0-9]+\]' | awk '{print $NF}' >"$tmp/exports"
	[ -s "$tmp/exports" ] && ! grep -qv '^srt_[a-z]' "$tmp/exports" && grep -qx srt_sandbox_explain "$tmp/exports"
	ok $? "F libsrt-0.dll exports only srt_* ($(wc -l <"$tmp/exports") functions)"
else
	skip "F libsrt-0.dll exports only srt_*" "x86_64-w64-mingw32-objdump is not installed"
fi

if ! [ -x "$wine" ]; then
	skip "every Wine test" "wine64 is not installed"
else
	w --version
	ok $? "K srt-win.exe --version runs under Wine"
	has "$tmp/out" "srt-win 0.1.0"; ok $? "K --version names the version"

	# a project with protected names, secrets and a glob, on Wine's Z: drive
	p=$tmp/proj
	mkdir -p "$p/.git/hooks" "$p/src" "$p/secrets/sub" "$p/build"
	: >"$p/.bashrc"; : >"$p/.git/config"; : >"$p/secrets/a.pem"; : >"$p/secrets/sub/b.pem"
	: >"$p/secrets/c.key"
	Z=Z:$p
	w --dry-run run --cwd "$Z" --allow-write "$Z" --deny-read "$Z/secrets/**/*.pem" \
		--deny-write "$Z/build" -- cmd.exe /c echo hi
	ok $? "F --dry-run run plans under Wine"
	has "$tmp/out" "ace allow <sandbox-user> 0x001301bf oi|ci $Z keep"
	ok $? "F allowWrite is modify without delete-child, inherited"
	has "$tmp/out" "ace deny <sandbox-user> 0x00000029 - $Z/secrets/a.pem" &&
		has "$tmp/out" "ace deny <sandbox-user> 0x00000029 - $Z/secrets/sub/b.pem" &&
		! has "$tmp/out" "c.key"
	ok $? "F the denyRead glob is expanded through Windows' FindFirstFile"
	has "$tmp/out" "ace deny <sandbox-user> 0x000d0116 - $Z/.bashrc [mandatory .bashrc]" &&
		has "$tmp/out" "ace deny <sandbox-user> 0x000d0156 oi|ci $Z/.git/hooks"
	ok $? "F mandatory denies found in the write root"
	has "$tmp/out" "ace deny <sandbox-user> 0x000d0156 oi|ci $Z/build [filesystem.denyWrite[0]]"
	ok $? "F denyWrite is a deny entry"
	has "$tmp/out" "wfp ALE_AUTH_CONNECT_V4 permit weight 15 user=<sandbox-user> remote=127.0.0.0/8 port=60080-60089" &&
		has "$tmp/out" "wfp ALE_AUTH_CONNECT_V6 block weight 0"
	ok $? "N WFP: permit loopback to the proxy ports, block the rest"
	has "$tmp/out" "nothing is changed"; ok $? "F the dry run says it changes nothing"

	w --dry-run windows-install --ports 61000-61004
	ok $? "K --dry-run windows-install"
	has "$tmp/out" "create account srt-sandbox" && has "$tmp/out" "wfp sublayer {5c7f0a61" &&
		[ "$(grep -c '^wfp filter' "$tmp/out")" = 4 ] && has "$tmp/out" "port=61000-61004"
	ok $? "K install plans the account, the sublayer and 4 filters by fixed GUIDs"
	has "$tmp/out" 'write HKLM\SOFTWARE\sandbox-runtime\ProxyPortLow 61000, ProxyPortHigh 61004'
	ok $? "K install records the port range its filters permit"
	w --dry-run windows-uninstall
	[ "$(grep -c '^delete wfp filter' "$tmp/out")" = 4 ] && has "$tmp/out" "delete account srt-sandbox"
	ok $? "K uninstall removes every object install creates"

	w --dry-run run --deny-read 'Z:/*' -- x.exe
	[ $? = 1 ] && has "$tmp/err" "would walk a whole disk"
	ok $? "F a glob over a whole drive is refused with its reason"
	w run --cwd "$Z" -- cmd.exe /c echo hi
	rc=$?
	[ $rc != 0 ] && grep -qE 'srt-win: .* failed \(error [0-9]+\): ' "$tmp/err"
	ok $? "K run fails closed under Wine, naming the layer ($(head -c 120 "$tmp/err"))"

	# the module's process slots (backend ABI 1.5), driven by spawn-test.exe
	# as the core drives them: the command in a kill-on-close job object
	st() { "$wine" "$out/spawn-test.exe" "$@" >"$tmp/out" 2>"$tmp/err"; }
	st header
	ok $? "K windows_wfp.dll exports ABI 1.5 with spawn, wait_proc, end_proc ($(head -c 80 "$tmp/out"))"
	st exit 7
	ok $? "K a spawned command's exit code comes back through wait_proc"
	st env
	ok $? "K the command gets exactly the environment srt hands spawn, nothing of srt's own"
	mkdir -p "$tmp/tree" "$tmp/orphan"
	st tree "Z:$tmp/tree"
	ok $? "K end_proc ends the command's child too (the job object), $(head -c 80 "$tmp/out")"
	st orphan "Z:$tmp/orphan"
	ok $? "K a spawner killed outright takes the command's tree with it (kill on job close)"

	# the core's Windows platform file and the proxy's loop on WSAPoll:
	# one TAP line per case loop-test.exe reports (PASS/FAIL name)
	(cd "$tmp" && "$wine" "$out/loop-test.exe") >"$tmp/loop" 2>"$tmp/err"
	rc=$?
	[ -s "$tmp/loop" ] || { ok 1 "K loop-test.exe ran (status $rc: $(head -c 120 "$tmp/err"))"; }
	while read -r verdict name; do
		[ "$verdict" = PASS ]; ok $? "N platform-windows/evloop: $name"
	done <"$tmp/loop"
	[ "$(grep -c '^PASS' "$tmp/loop")" = 6 ] && [ $rc = 0 ]
	ok $? "N loop-test.exe ran all 6 cases and exited 0 (status $rc)"

	# srt.exe with libsrt-0.dll and windows_wfp.dll beside it
	version=$(sed -n 's/^AC_INIT(\[srt\], \[\([^]]*\)\].*/\1/p' "$here/../configure.ac")
	s() { (cd "$tmp/proj" && "$wine" "$out/srt.exe" "$@") >"$tmp/out" 2>"$tmp/err"; }
	s --version
	ok $? "K srt.exe --version runs under Wine"
	has "$tmp/out" "$version"; ok $? "K srt.exe --version names $version ($(head -c 40 "$tmp/out"))"
	printf '{"network": {"allowedDomains": [], "deniedDomains": []}, "filesystem": {"denyRead": [], "allowWrite": 7, "denyWrite": []}}' >"$tmp/bad.json"
	s --settings "$tmp/bad.json" -- cmd.exe /c echo hi
	rc=$?
	[ $rc = 1 ] && has "$tmp/err" "srt: " && has "$tmp/err" "allowWrite"
	ok $? "K a settings error names the key and stops srt.exe (status $rc: $(head -c 120 "$tmp/err"))"
	printf '{"network": {"allowedDomains": [], "deniedDomains": []}, "filesystem": {"denyRead": [], "allowWrite": ["."], "denyWrite": ["./build"]}}' >"$tmp/good.json"
	s --explain --backend windows-wfp --settings "$tmp/good.json" -- cmd.exe /c echo hi
	rc=$?
	[ $rc = 0 ] && has "$tmp/out" "backend: windows-wfp" && has "$tmp/out" "runs here: no" &&
		has "$tmp/out" "wfp ALE_AUTH_CONNECT_V4" && grep -q "^ace allow .* $tmp/proj " "$tmp/out"
	ok $? "K srt.exe --explain prints the Windows plan: ACEs and WFP filters (status $rc: $(grep -m1 -e '^srt:' -e '^ace' "$tmp/err" "$tmp/out" | head -c 160))"
	s --backend windows-wfp -- cmd.exe /c echo hi
	rc=$?
	[ $rc != 0 ] && has "$tmp/err" "windows-wfp" && ! has "$tmp/out" "hi"
	ok $? "K srt.exe refuses to run where the backend is not installed (status $rc: $(head -c 160 "$tmp/err"))"
	# ---- credentials: extract patterns through PCRE2 (wincred) --------
	# the settings check (libsrt/extract-pcre2.c) and credentials.dll
	# judge a pattern with one engine; "(?:...)" is PCRE2's (POSIX has
	# no such group). onExtractNoMatch "error" makes the module's own
	# match visible: it refuses the run when the value does not match.
	if command -v x86_64-w64-mingw32-objdump >/dev/null; then
		x86_64-w64-mingw32-objdump -p "$out/credentials.dll" 2>/dev/null |
			sed -n '/Ordinal\/Name Pointer/,/^$/p' | grep -E '^[[:space:]]*\[ *[0-9]+\]' | awk '{print $NF}' | sort >"$tmp/cred-exports"
		[ "$(tr '\n' ' ' <"$tmp/cred-exports")" = "srt_credentials_mask srt_filter_entry " ]
		ok $? "F credentials.dll exports only srt_filter_entry and srt_credentials_mask ($(tr '\n' ' ' <"$tmp/cred-exports"))"
	else
		skip "F credentials.dll exports only its two entry points" "x86_64-w64-mingw32-objdump is not installed"
	fi
	cred() { # extract-pattern: a settings file masking TOK with it
		printf '{"network": {"allowedDomains": ["api.example.com"], "deniedDomains": [], "tlsTerminate": {}}, "filesystem": {"denyRead": [], "allowWrite": [], "denyWrite": []}, "credentials": {"envVars": [{"name": "TOK", "mode": "mask", "extract": "%s", "onExtractNoMatch": "error"}]}}' "$1" >"$tmp/re.json"
	}
	cred '(?:token|key)=(\\w+)'
	export TOK='key=abcdefghijkl0123 rest'
	s --explain --backend windows-wfp --settings "$tmp/re.json" -- x.exe
	rc=$?
	[ $rc = 0 ] && has "$tmp/out" "allow host  api.example.com"
	ok $? "K an extract pattern is accepted and credentials.dll masks the value it matches (status $rc: $(head -c 160 "$tmp/err"))"
	export TOK='nothing to mask'
	s --explain --backend windows-wfp --settings "$tmp/re.json" -- x.exe
	rc=$?
	[ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && has "$tmp/err" 'credentials.envVars entry "TOK"' &&
		has "$tmp/err" "matched nothing"
	ok $? "K credentials.dll applies the pattern: a value it does not match is refused (onExtractNoMatch error; status $rc: $(head -c 160 "$tmp/err"))"
	cred '(?:token|key=(\\w+)'
	export TOK='key=abcdefghijkl0123'
	s --explain --backend windows-wfp --settings "$tmp/re.json" -- x.exe
	rc=$?
	[ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && has "$tmp/err" "credentials.envVars[0].extract" &&
		has "$tmp/err" "not a valid regular expression: missing closing parenthesis" && ! has "$tmp/out" "allow host"
	ok $? "K a bad extract pattern is refused in one line naming the key (status $rc: $(head -c 200 "$tmp/err"))"
	unset TOK

	# ---- the sandbox's proxy on a loopback port (winrun) ---------------
	# network.allowedDomains on windows-wfp: the proxy listens on the
	# first free port of windows.proxyPortRange at 127.0.0.1 (the WFP
	# filters permit that range alone), a busy range refuses the run.
	# Ports are held by a python3 listener on the host's loopback, which
	# Wine's sockets share.
	printf '{"network": {"allowedDomains": ["example.com"], "deniedDomains": []}, "filesystem": {"denyRead": [], "allowWrite": ["."], "denyWrite": []}, "windows": {"proxyPortRange": [60100, 60102]}}' >"$tmp/lp.json"
	s --explain --backend windows-wfp --settings "$tmp/lp.json" -- x.exe
	rc=$?
	[ $rc = 0 ] && grep -q 'proxy at 127\.0\.0\.1:6010[0-2] .*60100-60102   <- windows\.proxyPortRange' "$tmp/out" &&
		grep -q '^wfp ALE_AUTH_CONNECT_V4 permit .* port=60100-60102 ' "$tmp/out" &&
		has "$tmp/out" "filtering proxy on a loopback port"
	ok $? "K allowedDomains on windows-wfp: --explain shows the proxy at 127.0.0.1 in windows.proxyPortRange and the filters permit that range (status $rc: $(grep -m1 -e '^srt:' -e 'proxy at' "$tmp/err" "$tmp/out" | head -c 200))"
	printf '{"network": {"allowedDomains": ["example.com"], "deniedDomains": []}, "filesystem": {"denyRead": [], "allowWrite": [], "denyWrite": []}, "windows": {"proxyPortRange": [60102, 60100]}}' >"$tmp/lpbad.json"
	s --explain --backend windows-wfp --settings "$tmp/lpbad.json" -- x.exe
	rc=$?
	[ $rc = 1 ] && has "$tmp/err" "proxyPortRange" && ! has "$tmp/out" "proxy at"
	ok $? "K a bad windows.proxyPortRange is refused naming the key (status $rc: $(head -c 160 "$tmp/err"))"
	# the range the installed filters permit (windows-install records
	# it in the registry; Wine cannot install, so the test writes the
	# two values itself and removes them after): a run whose range lies
	# outside it is refused, at --explain too, naming both ranges
	reg() { "$wine" reg "$@" >/dev/null 2>&1; }
	key='HKLM\SOFTWARE\sandbox-runtime'
	if reg query "$key"; then
		skip "K a windows.proxyPortRange outside the installed filters' range is refused" "$key exists in $WINEPREFIX already"
		skip "K the same range inside the installed one is not refused" "$key exists in $WINEPREFIX already"
	else
		reg add "$key" /v ProxyPortLow /t REG_DWORD /d 60080 /f && reg add "$key" /v ProxyPortHigh /t REG_DWORD /d 60089 /f
		s --explain --backend windows-wfp --settings "$tmp/lp.json" -- x.exe
		rc=$?
		cp "$tmp/err" "$tmp/err1"
		s --backend windows-wfp --settings "$tmp/lp.json" -- cmd.exe /c echo hi
		rc2=$?
		[ $rc = 1 ] && [ "$(wc -l <"$tmp/err1")" = 1 ] &&
			has "$tmp/err1" "windows.proxyPortRange 60100-60102 is outside the ports the installed WFP filters permit (60080-60089)" &&
			[ $rc2 = 1 ] && has "$tmp/err" "is outside the ports the installed WFP filters permit" && ! has "$tmp/out" hi
		ok $? "K a windows.proxyPortRange outside the installed filters' range is refused by --explain and the run (status $rc, $rc2: $(head -c 200 "$tmp/err1"))"
		reg add "$key" /v ProxyPortLow /t REG_DWORD /d 60100 /f && reg add "$key" /v ProxyPortHigh /t REG_DWORD /d 60102 /f
		s --explain --backend windows-wfp --settings "$tmp/lp.json" -- x.exe
		rc=$?
		[ $rc = 0 ] && ! has "$tmp/err" "outside" && grep -q '^wfp ALE_AUTH_CONNECT_V4 permit .* port=60100-60102 ' "$tmp/out"
		ok $? "K the same range inside the installed one is not refused (status $rc: $(head -c 160 "$tmp/err"))"
		reg delete "$key" /f
	fi
	if command -v python3 >/dev/null; then
		hold() { # port... : a listener on each, until killed; its pid
			rm -f "$tmp/held"
			python3 -c 'import socket, sys, time
ss = []
for p in sys.argv[2:]:
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", int(p))); s.listen(1); ss.append(s)
open(sys.argv[1], "w").write("held")
time.sleep(120)' "$tmp/held" "$@" 2>/dev/null &
			hp=$!
			i=0 # python3 ends at once when a port is taken; under load it starts slowly
			while [ $i -lt 100 ] && ! [ -s "$tmp/held" ] && kill -0 $hp 2>/dev/null; do
				sleep 0.2; i=$((i + 1))
			done
			[ -s "$tmp/held" ]
		}
		if hold 60100; then
			s --explain --backend windows-wfp --settings "$tmp/lp.json" -- x.exe
			rc=$?
			kill $hp 2>/dev/null; wait $hp 2>/dev/null
			[ $rc = 0 ] && grep -q 'proxy at 127\.0\.0\.1:6010[12] ' "$tmp/out"
			ok $? "K the first port of the range held by another program: the next free one is taken (status $rc: $(grep -m1 -e '^srt:' -e 'proxy at' "$tmp/err" "$tmp/out" | head -c 200))"
		else
			kill $hp 2>/dev/null; wait $hp 2>/dev/null
			skip "K the first port held: the next free one is taken" "port 60100 is in use on this host already"
		fi
		if hold 60100 60101 60102; then
			s --explain --backend windows-wfp --settings "$tmp/lp.json" -- x.exe
			rc=$?
			kill $hp 2>/dev/null; wait $hp 2>/dev/null
			[ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && has "$tmp/err" "windows.proxyPortRange 60100-60102" &&
				has "$tmp/err" "in use" && ! has "$tmp/out" "proxy at"
			ok $? "K every port of the range held: the run is refused in one line naming the range (status $rc: $(head -c 200 "$tmp/err"))"
		else
			kill $hp 2>/dev/null; wait $hp 2>/dev/null
			skip "K every port of the range held: refused" "ports 60100-60102 are in use on this host already"
		fi
	else
		skip "K the first port held: the next free one is taken" "python3 is not installed"
		skip "K every port of the range held: refused" "python3 is not installed"
	fi

	# ---- the TLS module, drive-letter paths, the run's TMPDIR ---------
	# (winrest) mbedtls.dll beside libsrt-0.dll: loaded by srt.exe's own
	# loader when the settings have network.tlsTerminate; the header
	# checked, a context made (an ephemeral CA: mbedTLS's key generation
	# and certificate writing under Wine)
	pe64 "$out/mbedtls.dll"; ok $? "F mbedtls.dll is an x86-64 Windows image"
	if command -v x86_64-w64-mingw32-objdump >/dev/null; then
		x86_64-w64-mingw32-objdump -p "$out/mbedtls.dll" 2>/dev/null |
			sed -n '/Ordinal\/Name Pointer/,/^$/p' | grep -E '^[[:space:]]*\[ *[0-9]+\]' | awk '{print $NF}' >"$tmp/tls-exports"
		[ "$(cat "$tmp/tls-exports")" = srt_tls_entry ] &&
			! x86_64-w64-mingw32-objdump -p "$out/libsrt-0.dll" "$out/srt.exe" | grep -qi mbedtls
		ok $? "F mbedtls.dll exports only srt_tls_entry; libsrt-0.dll and srt.exe do not link mbedTLS"
	else
		skip "F mbedtls.dll exports only srt_tls_entry" "x86_64-w64-mingw32-objdump is not installed"
	fi
	printf '{"network": {"allowedDomains": [], "deniedDomains": [], "tlsTerminate": {}}, "filesystem": {"denyRead": [], "allowWrite": ["."], "denyWrite": []}}' >"$tmp/tls.json"
	s --debug --explain --backend windows-wfp --settings "$tmp/tls.json" -- cmd.exe /c echo hi
	rc=$?
	[ $rc = 0 ] && grep -q '^allow read  /tmp/srt-ca-[A-Za-z0-9]*   <- network.tlsTerminate' "$tmp/out" &&
		has "$tmp/err" "TLS termination: CA and trust bundle in"
	ok $? "K srt.exe loads mbedtls.dll for network.tlsTerminate and makes its CA (status $rc: $(grep -m1 -e '^srt:' -e 'srt-ca' "$tmp/err" "$tmp/out" | head -c 160))"
	ca=$(sed -n 's/^allow read  \(\/tmp\/srt-ca-[A-Za-z0-9]*\) .*/\1/p' "$tmp/out")
	[ -n "$ca" ] && ! [ -e "$ca" ]; ok $? "K the CA's directory ($ca) is removed when srt.exe ends"
	# a file that is no TLS module of this ABI, in a directory named by
	# SRT_TLS_DIR: refused by its header, naming the file and both ABIs
	# (modules are found beside libsrt-0.dll: a copy of the images with
	# tls-bad.dll as mbedtls.dll)
	mkdir -p "$tmp/badtls" && cp "$out/srt.exe" "$out/libsrt-0.dll" "$out/windows_wfp.dll" "$tmp/badtls/" &&
		cp "$out/tls-bad.dll" "$tmp/badtls/mbedtls.dll"
	(cd "$tmp/proj" && "$wine" "$tmp/badtls/srt.exe" --explain --backend windows-wfp --settings "$tmp/tls.json" -- x.exe) >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 1 ] && has "$tmp/err" "badtls" && has "$tmp/err" "was built for ABI 99.0" &&
		has "$tmp/err" "rebuild the module" && ! has "$tmp/out" "srt-ca-"
	ok $? "K a wrong TLS module is refused by its header check (status $rc: $(head -c 200 "$tmp/err"))"

	# drive-letter paths: the current drive's (Z:) spelled the core's way,
	# another drive's (C:) or a share refused by name, never a crash
	zs=$(echo "Z:$tmp/good.json" | tr / '\\')
	s --explain --backend windows-wfp --settings "$zs" -- x.exe
	rc=$?
	[ $rc = 0 ] && grep -q "^settings: $tmp/good.json.\{0,1\}$" "$tmp/out"
	ok $? "F --settings 'Z:\\...\\good.json' on the current drive is read as $tmp/good.json (status $rc: $(head -c 160 "$tmp/err"))"
	s --explain --backend windows-wfp --settings "Z:$tmp/good.json" -- x.exe
	rc=$?
	[ $rc = 0 ] && grep -q "^settings: $tmp/good.json.\{0,1\}$" "$tmp/out"
	ok $? "F --settings 'Z:/.../good.json' too (status $rc: $(head -c 160 "$tmp/err"))"
	s --explain --backend windows-wfp --settings 'C:\srt\settings.json' -- x.exe
	rc=$?
	[ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && has "$tmp/err" 'C:\srt\settings.json' &&
		has "$tmp/err" "not supported on Windows" && has "$tmp/err" "another drive"
	ok $? "F --settings on another drive is refused in one line naming it (status $rc: $(head -c 200 "$tmp/err"))"
	zp=$(echo "Z:$tmp/proj/src" | tr / '\\' | sed 's/\\/\\\\/g')
	printf '{"network": {"allowedDomains": [], "deniedDomains": []}, "filesystem": {"denyRead": [], "allowWrite": ["%s", "Z:%s/proj/build"], "denyWrite": []}}' "$zp" "$tmp" >"$tmp/drive.json"
	s --explain --backend windows-wfp --settings "$tmp/drive.json" -- x.exe
	rc=$?
	[ $rc = 0 ] && grep -q "^allow write $tmp/proj/src  *<- filesystem.allowWrite\[0\]" "$tmp/out" &&
		grep -q "^allow write $tmp/proj/build  *<- filesystem.allowWrite\[1\]" "$tmp/out"
	ok $? "F settings paths 'Z:\\...' and 'Z:/...' on the current drive are the core's /... (status $rc: $(head -c 160 "$tmp/err"))"
	for bad in 'C:\\Windows\\Temp' '\\\\server\\share\\x'; do
		printf '{"network": {"allowedDomains": [], "deniedDomains": []}, "filesystem": {"denyRead": [], "allowWrite": ["%s"], "denyWrite": []}}' "$bad" >"$tmp/drive.json"
		s --explain --backend windows-wfp --settings "$tmp/drive.json" -- x.exe
		rc=$?
		name=$(printf '%s' "$bad" | sed 's/\\\\/\\/g')
		[ $rc = 1 ] && has "$tmp/err" "$name" && has "$tmp/err" "not supported on Windows" &&
			has "$tmp/err" "allowWrite"
		ok $? "F a settings path on another drive or a share ($name) is refused by its key (status $rc: $(head -c 200 "$tmp/err"))"
	done

	# the run's own TMPDIR (/tmp/claude/srt-run.*) is removed at the end
	# of a run, an explained one or a refused one
	s --explain --backend windows-wfp --settings "$tmp/good.json" -- x.exe
	rc=$?
	td=$(sed -n 's/^TMPDIR: //p' "$tmp/out" | tr -d '\r')
	[ $rc = 0 ] && case $td in /tmp/claude/srt-run.*) ! [ -e "$td" ];; *) false;; esac
	ok $? "K the run's TMPDIR ($td) is gone after --explain (status $rc)"
	# a refused run names no TMPDIR: the directories made for srt.exe in
	# /tmp/claude must be gone after it. Wine makes a directory in its
	# wineserver, so the persistent server is stopped and the run starts
	# its own under strace, which sees every mkdir (the Linux tests that
	# run beside this script make and keep their own srt-run.* there, so a
	# listing before and after cannot tell whose a directory is). Without
	# strace, a listing before and after, which holds only when nothing
	# else runs srt on this host.
	ls /tmp/claude >"$tmp/before" 2>/dev/null
	if command -v strace >/dev/null 2>&1; then
		[ -x "$ws" ] && "$ws" -k 2>/dev/null
		(cd "$tmp/proj" && strace -f -qq -e trace=mkdir,mkdirat -o "$tmp/trace" \
			"$wine" "$out/srt.exe" --backend windows-wfp --settings "$tmp/good.json" -- cmd.exe /c echo hi) \
			>"$tmp/out" 2>"$tmp/err"
		rc=$?
		[ -x "$ws" ] && "$ws" -p30 2>/dev/null
		made=$(sed -n 's|.*mkdir[at]*(.*/tmp/claude/\(srt-run\.[^/"]*\)".*|\1|p' "$tmp/trace" | sort -u)
		# seeing none would mean this check has lost sight of the run
		how="strace saw it make: ${made:-nothing}"
		saw=$made
	else
		s --backend windows-wfp --settings "$tmp/good.json" -- cmd.exe /c echo hi
		rc=$?
		made=
		how="no strace: a listing before and after"
		saw=unchecked
	fi
	left=
	for wait in 0 5 10; do
		sleep $wait
		if [ -n "$made" ]; then
			left=$(for d in $made; do [ -e "/tmp/claude/$d" ] && echo "$d"; done)
		else
			left=$(ls /tmp/claude 2>/dev/null | grep -vxF -f "$tmp/before" | grep '^srt-run\.' | while read -r d; do [ -e "/tmp/claude/$d" ] && echo "$d"; done)
		fi
		[ -z "$left" ] && break
	done
	[ $rc != 0 ] && has "$tmp/err" "windows-wfp" && [ -n "$saw" ] && [ -z "$left" ]
	ok $? "K and after a run refused because the backend is not installed (status $rc; $how; left: $left)"

	# srt.exe proxy serving under Wine: --listen on loopback TCP, the test
	# decider (tests/helpers/decider.py) on srt.exe's stdin and stdout
	# through two FIFOs (--decider-in 0 --decider-out 1), a Linux
	# http.server on 127.0.0.1 as the origin (Wine's sockets are the
	# host's), and proxy-client.exe (Winsock alone, none of srt's code) as
	# the client
	PX_LINES="N srt.exe proxy serves on 127.0.0.1 under Wine
N an allowed plain-HTTP GET gets the origin's body through the proxy
N a host name is resolved by the proxy's resolver (c-ares) and served
N a host the decider's hello does not allow: 403 with srt's reason
N the decider's deny: its status and reason
N a malformed request: 400
N CONNECT without --ca-fd: 403, never tunnelled
N a Host header naming another host than the target: refused 421
N a TCP client sending the bridge's hello byte gets no control connection
N the listener is bound to 127.0.0.1 only
N the decider's end stops the proxy: status 0, the reason named"
	if ! command -v python3 >/dev/null || ! [ -x "$out/proxy-client.exe" ]; then
		while read -r name; do
			skip "$name" "python3 or proxy-client.exe is missing"
		done <<EOF
$PX_LINES
EOF
	else
		mkdir -p "$tmp/www"
		printf 'served through srt under Wine\n' >"$tmp/www/allow"
		python3 -u -m http.server --bind 127.0.0.1 --directory "$tmp/www" 0 \
			>"$tmp/www.out" 2>&1 &
		www=$!
		mkfifo "$tmp/p2d" "$tmp/d2p"
		wport= pport= i=0
		while [ -z "$wport" ] && [ $i -lt 100 ]; do
			sleep 0.1; i=$((i + 1))
			wport=$(sed -n 's/^Serving HTTP on .* port \([0-9]*\) .*/\1/p' "$tmp/www.out")
		done
		target=127.0.0.1:$wport
		# the FIFOs are opened in one order on both sides (p2d, then d2p)
		python3 "$here/../tests/helpers/decider.py" --allow "$target" --allow "localhost:$wport" <"$tmp/p2d" >"$tmp/d2p" &
		dec=$!
		"$wine" "$out/srt.exe" proxy --listen 127.0.0.1:0 --decider-in 0 --decider-out 1 \
			>"$tmp/p2d" <"$tmp/d2p" 2>"$tmp/px.err" &
		px=$!
		i=0
		while [ -z "$pport" ] && [ $i -lt 600 ] && kill -0 $px 2>/dev/null; do
			sleep 0.1; i=$((i + 1))
			pport=$(tr -d '\r' <"$tmp/px.err" | sed -n 's/^srt proxy: serving 127\.0\.0\.1:\([0-9]*\)$/\1/p')
		done
		[ -n "$pport" ] && [ -n "$wport" ]
		ok $? "N srt.exe proxy serves on 127.0.0.1 under Wine ($(tr '\n' ' ' <"$tmp/px.err" | head -c 160))"
		pxc() { "$wine" "$out/proxy-client.exe" "$@" >"$tmp/pc.out" 2>"$tmp/pc.err"; }
		status() { head -n1 "$tmp/pc.out" | tr -d '\r' | cut -d' ' -f2; }
		get() { # path host-in-target host-header
			pxc "$pport" "GET http://$2$1 HTTP/1.1\r\nHost: $3\r\nConnection: close\r\n\r\n"
		}
		get /allow "$target" "$target"
		[ "$(status)" = 200 ] && has "$tmp/pc.out" "served through srt under Wine"
		ok $? "N an allowed plain-HTTP GET gets the origin's body through the proxy ($(head -n1 "$tmp/pc.out" | tr -d '\r'))"
		# a name, not an address: the proxy asks its resolver (c-ares, as
		# win/build.sh compiles it) for localhost's addresses
		get /allow "localhost:$wport" "localhost:$wport"
		[ "$(status)" = 200 ] && has "$tmp/pc.out" "served through srt under Wine"
		ok $? "N a host name is resolved by the proxy's resolver (c-ares) and served ($(head -n1 "$tmp/pc.out" | tr -d '\r'))"
		get /allow not-allowed.example not-allowed.example
		[ "$(status)" = 403 ] && has "$tmp/pc.out" "blocked by network allowlist"
		ok $? "N a host the decider's hello does not allow: 403 with srt's reason ($(head -n1 "$tmp/pc.out" | tr -d '\r'))"
		get /deny "$target" "$target"
		[ "$(status)" = 451 ] && has "$tmp/pc.out" "the test decider says no"
		ok $? "N the decider's deny: its status and reason ($(head -n1 "$tmp/pc.out" | tr -d '\r'))"
		pxc "$pport" 'GET http://a b c HTTP/1.1\r\n\x01\x02\r\n\r\n'
		[ "$(status)" = 400 ] && has "$tmp/pc.out" "malformed request"
		ok $? "N a malformed request: 400 ($(head -n1 "$tmp/pc.out" | tr -d '\r'))"
		: >"$tmp/www.out"
		pxc "$pport" "CONNECT $target HTTP/1.1\r\nHost: $target\r\n\r\nGET /allow HTTP/1.1\r\nHost: $target\r\n\r\n"
		[ "$(status)" = 403 ] && has "$tmp/pc.out" "does not tunnel CONNECTs" &&
			! has "$tmp/pc.out" "served through srt" && ! grep -q 'GET /allow' "$tmp/www.out"
		ok $? "N CONNECT without --ca-fd: 403, never tunnelled ($(head -n1 "$tmp/pc.out" | tr -d '\r'))"
		# srt-connect.exe (ssh's ProxyCommand) against srt.exe's own
		# proxy: the same refusal, in srt-connect's words
		: >"$tmp/www.out"
		printf 'SSH-2.0-test\r\n' | HTTPS_PROXY=http://127.0.0.1:$pport "$wine" "$out/srt-connect.exe" 127.0.0.1 "$wport" \
			>"$tmp/sc.out" 2>"$tmp/sc.err"
		rc=$?
		[ $rc = 1 ] && ! [ -s "$tmp/sc.out" ] && [ "$(wc -l <"$tmp/sc.err")" = 1 ] &&
			grep -q "^srt-connect: the proxy refused 127\.0\.0\.1:$wport: HTTP/1\.1 403 " "$tmp/sc.err" &&
			! grep -q 'SSH-2.0' "$tmp/www.out"
		ok $? "N srt-connect.exe through srt.exe proxy: its 403 is status 1 and one line naming the target and the status (status $rc: $(head -c 160 "$tmp/sc.err"))"
		get /allow "$target" other.example
		[ "$(status)" = 421 ] && has "$tmp/pc.out" "Host header does not match" &&
			! has "$tmp/pc.out" "served through srt"
		ok $? "N a Host header naming another host than the target: refused 421 ($(head -n1 "$tmp/pc.out" | tr -d '\r'))"
		# SRT_PASS_HELLO (proxies/wire.h), which makes a Unix-socket
		# client the bridge: the acknowledgement is that byte back
		pxc -s "$pport" '\x00'
		rc=$?
		[ $rc = 0 ] && [ "$(head -c1 "$tmp/pc.out" | od -An -tx1 | tr -d ' ')" != 00 ]
		ok $? "N a TCP client sending the bridge's hello byte gets no control connection ($(head -c 40 "$tmp/pc.out" | tr -d '\r\n\0'))"
		if command -v ss >/dev/null; then
			ss -Hltn "sport = :$pport" >"$tmp/ss"
			[ -n "$pport" ] && [ "$(wc -l <"$tmp/ss")" = 1 ] && grep -q " 127\.0\.0\.1:$pport " "$tmp/ss"
			ok $? "N the listener is bound to 127.0.0.1 only ($(tr -s ' ' <"$tmp/ss" | head -c 80))"
		else
			skip "N the listener is bound to 127.0.0.1 only" "ss (iproute2) is not installed"
		fi
		# the decider ends: its requests fail closed and the proxy stops
		kill $dec 2>/dev/null
		i=0
		while kill -0 $px 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		kill $px 2>/dev/null
		wait $px
		rc=$?
		[ $rc = 0 ] && has "$tmp/px.err" "srt proxy: stopped (decider:"
		ok $? "N the decider's end stops the proxy: status 0, the reason named (status $rc: $(tail -n1 "$tmp/px.err" | head -c 120))"

		# ---- --listen-fd: a listener inherited from a parent (winfd) --
		# listen-parent.exe makes an inheritable listening socket on
		# 127.0.0.1 and starts srt.exe (or itself, "probe") with
		# "--listen-fd <handle value>". Its probe measures first whether
		# this Winsock answers for a socket a process inherited.
		s proxy --listen-fd 1234 --decider-in 0 --decider-out 1
		rc=$?
		[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
			has "$tmp/err" "srt proxy: --listen-fd 1234: not an open descriptor or socket"
		ok $? "N srt.exe proxy --listen-fd refuses a value that is neither a descriptor nor a socket handle, in one line (status $rc: $(head -c 120 "$tmp/err"))"
		winexe() { echo "Z:$out/$1" | tr / '\\'; }
		lp() { "$wine" "$out/listen-parent.exe" "$@" </dev/null >"$tmp/lp.out" 2>"$tmp/lp.err"; }
		lp listen "$(winexe listen-parent.exe)" probe
		rc=$?
		if [ $rc = 3 ]; then
			why="Wine's Winsock answers only for the sockets a process made or accepted itself: getsockopt gives WSAENOTSOCK (and WSAPoll, where the proxy waits) for an inherited listener that getsockname sees ($(tr -d '\r' <"$tmp/lp.out" | head -c 120))"
			skip "N srt.exe proxy --listen-fd serves a listener inherited from its parent" "$why"
			skip "N srt.exe proxy --listen-fd refuses an inherited socket that is not listening" "$why"
		elif [ $rc = 0 ]; then
			lp bound "$(winexe srt.exe)" proxy --decider-in 0 --decider-out 1
			rc=$?
			[ $rc != 0 ] && grep -q 'srt proxy: .*--listen-fd [0-9]* is not a listening socket' "$tmp/lp.err"
			ok $? "N srt.exe proxy --listen-fd refuses an inherited socket that is not listening (status $rc: $(grep -v '^listen-parent' "$tmp/lp.err" | head -c 160))"
			mkfifo "$tmp/p2d2" "$tmp/d2p2"
			python3 "$here/../tests/helpers/decider.py" --allow "$target" <"$tmp/p2d2" >"$tmp/d2p2" &
			dec=$!
			"$wine" "$out/listen-parent.exe" listen "$(winexe srt.exe)" proxy --decider-in 0 --decider-out 1 \
				>"$tmp/p2d2" <"$tmp/d2p2" 2>"$tmp/lp.err" &
			px=$!
			fport= i=0
			while [ $i -lt 600 ] && kill -0 $px 2>/dev/null && ! grep -q '^srt proxy: serving' "$tmp/lp.err"; do
				sleep 0.1; i=$((i + 1))
			done
			fport=$(tr -d '\r' <"$tmp/lp.err" | sed -n 's/^listen-parent: port \([0-9]*\)$/\1/p')
			pxc "${fport:-1}" "GET http://$target/allow HTTP/1.1\r\nHost: $target\r\nConnection: close\r\n\r\n"
			[ -n "$fport" ] && [ "$(status)" = 200 ] && has "$tmp/pc.out" "served through srt under Wine"
			ok $? "N srt.exe proxy --listen-fd serves a listener inherited from its parent ($(head -n1 "$tmp/pc.out" | tr -d '\r'); $(tr '\n' ' ' <"$tmp/lp.err" | head -c 160))"
			kill $dec $px 2>/dev/null
			wait $px 2>/dev/null
		else
			ok 1 "N listen-parent.exe's probe ran (status $rc: $(head -c 160 "$tmp/lp.err"))"
		fi
		kill $www 2>/dev/null
		wait $www 2>/dev/null
	fi
	# ---- srt-connect.exe: ssh's ProxyCommand through the proxy (winssh)
	# win/connect-peers.py: a CONNECT proxy that tunnels "echo:<port>"
	# to an echo server only with the Basic credentials of HTTPS_PROXY
	# (percent-decoded), refuses refused.example 403, and the echo server
	# that answers the end of its input with a last line
	SC_LINES="N srt-connect.exe: bytes both ways through a CONNECT tunnel, binary-exact, with HTTPS_PROXY's credentials
N srt-connect.exe: the end of its input half-closes the tunnel and the rest still arrives (status 0)
N srt-connect.exe: the tunnel closed by the far side ends it while its input is still open (status 0)
N srt-connect.exe: the proxy's 403 is status 1 and one line naming the target and the status
N srt-connect.exe: wrong credentials (407) are status 1 and one line
N srt-connect.exe: a proxy that is not there is status 1 and one line naming its address
N srt-connect.exe: without HTTPS_PROXY, status 1 and one line naming the variable
K a command srt.exe runs gets GIT_SSH_COMMAND naming srt-connect.exe beside the backend module
N in that command, srt-connect.exe goes through the run's own proxy to an allowed host
N and a host the run does not allow is refused by the run's proxy in srt-connect's words"
	if ! command -v python3 >/dev/null; then
		while read -r name; do
			skip "$name" "python3 is missing"
		done <<EOF
$SC_LINES
EOF
	else
		python3 "$here/connect-peers.py" --user srt.dGVzdA== --token 't@k/n' >"$tmp/peers.out" 2>"$tmp/peers.err" &
		peers=$!
		cport= i=0
		while [ -z "$cport" ] && [ $i -lt 100 ] && kill -0 $peers 2>/dev/null; do
			sleep 0.1; i=$((i + 1))
			cport=$(sed -n 's/^proxy \([0-9]*\)$/\1/p' "$tmp/peers.out")
		done
		sc() { # target port: srt-connect.exe, stdin from the caller; a
			# relay that never ends fails (timeout's status 124)
			timeout 60 "$wine" "$out/srt-connect.exe" "$@" >"$tmp/sc.out" 2>"$tmp/sc.err"
		}
		export HTTPS_PROXY="http://srt.dGVzdA%3D%3D:t%40k%2Fn@127.0.0.1:${cport:-1}"
		# 256 KiB with every byte value: CR LF and ^Z pass unchanged
		python3 -c 'import os, sys; sys.stdout.buffer.write(bytes(range(256)) * 64 + os.urandom(245760))' >"$tmp/sc.in"
		sc echo 22 <"$tmp/sc.in"
		rc=$?
		{ cat "$tmp/sc.in"; echo "echo: end of input seen"; } >"$tmp/sc.want"
		head -c "$(wc -c <"$tmp/sc.in")" "$tmp/sc.out" | cmp -s - "$tmp/sc.in"
		ok $? "N srt-connect.exe: bytes both ways through a CONNECT tunnel, binary-exact, with HTTPS_PROXY's credentials ($(wc -c <"$tmp/sc.out") bytes back; $(head -c 120 "$tmp/sc.err"))"
		[ $rc = 0 ] && cmp -s "$tmp/sc.out" "$tmp/sc.want" && ! [ -s "$tmp/sc.err" ]
		ok $? "N srt-connect.exe: the end of its input half-closes the tunnel and the rest still arrives (status $rc)"
		# its input a FIFO held open by this shell: the tunnel's end
		# must end srt-connect.exe though a thread still waits on input
		mkfifo "$tmp/sc.fifo"
		"$wine" "$out/srt-connect.exe" echo 22 <"$tmp/sc.fifo" >"$tmp/sc.out" 2>"$tmp/sc.err" &
		scp=$!
		exec 3>"$tmp/sc.fifo"
		printf close >&3
		i=0
		while kill -0 $scp 2>/dev/null && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
		alive=no
		kill -0 $scp 2>/dev/null && { kill $scp; alive=yes; }
		wait $scp
		rc=$?
		exec 3>&-
		[ $alive = no ] && [ $rc = 0 ] && [ "$(cat "$tmp/sc.out")" = closing ]
		ok $? "N srt-connect.exe: the tunnel closed by the far side ends it while its input is still open (status $rc after $((i / 10)).$((i % 10)) s, still running: $alive)"
		printf 'SSH-2.0-test\r\n' | sc refused.example 22
		rc=$?
		[ $rc = 1 ] && ! [ -s "$tmp/sc.out" ] && [ "$(wc -l <"$tmp/sc.err")" = 1 ] &&
			grep -q '^srt-connect: the proxy refused refused\.example:22: HTTP/1\.1 403 Forbidden.\{0,1\}$' "$tmp/sc.err"
		ok $? "N srt-connect.exe: the proxy's 403 is status 1 and one line naming the target and the status (status $rc: $(head -c 120 "$tmp/sc.err"))"
		printf 'x' | HTTPS_PROXY="http://srt.dGVzdA%3D%3D:wrong@127.0.0.1:${cport:-1}" sc echo 22
		rc=$?
		[ $rc = 1 ] && ! [ -s "$tmp/sc.out" ] && [ "$(wc -l <"$tmp/sc.err")" = 1 ] &&
			has "$tmp/sc.err" "srt-connect: the proxy refused echo:22: HTTP/1.1 407"
		ok $? "N srt-connect.exe: wrong credentials (407) are status 1 and one line (status $rc: $(head -c 120 "$tmp/sc.err"))"
		# a port nothing listens on: one the test bound and let go
		dead=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		printf 'x' | HTTPS_PROXY="http://srt:tok@127.0.0.1:$dead" sc echo 22
		rc=$?
		[ $rc = 1 ] && ! [ -s "$tmp/sc.out" ] && [ "$(wc -l <"$tmp/sc.err")" = 1 ] &&
			has "$tmp/sc.err" "srt-connect: cannot connect to the proxy '127.0.0.1:$dead'"
		ok $? "N srt-connect.exe: a proxy that is not there is status 1 and one line naming its address (status $rc: $(head -c 120 "$tmp/sc.err"))"
		unset HTTPS_PROXY
		printf 'x' | env -u https_proxy -u HTTP_PROXY "$wine" "$out/srt-connect.exe" echo 22 >"$tmp/sc.out" 2>"$tmp/sc.err"
		rc=$?
		[ $rc = 1 ] && [ "$(wc -l <"$tmp/sc.err")" = 1 ] && has "$tmp/sc.err" "srt-connect: 'HTTPS_PROXY' is not set"
		ok $? "N srt-connect.exe: without HTTPS_PROXY, status 1 and one line naming the variable (status $rc: $(head -c 120 "$tmp/sc.err"))"

		# ---- the core's side of a run (winssh): srt.exe runs a command
		# through passthrough-test.dll, a test module that ENFORCES
		# NOTHING (windows-wfp cannot run one under Wine) and declares
		# the loopback proxy of windows-wfp; a copy of it with
		# srt-connect.exe beside it, in a folder with a blank and
		# parentheses as "Program Files (x86)" has
		pt="$tmp/pt dir (x86)"
		mkdir -p "$pt" && cp "$out/test/passthrough-test.dll" "$out/srt-connect.exe" "$pt/"
		ptw=$(echo "Z:$pt" | tr / '\\')
		eport=$(sed -n 's/^echo \([0-9]*\)$/\1/p' "$tmp/peers.out")
		printf '{"network": {"allowedDomains": ["127.0.0.1:%s"], "deniedDomains": []}, "filesystem": {"disabled": true, "denyRead": [], "allowWrite": [], "denyWrite": []}, "windows": {"proxyPortRange": [60120, 60129]}}' \
			"${eport:-1}" >"$tmp/pt.json"
		ptrun() { # command...: srt.exe through passthrough-test.dll
			(cd "$tmp/proj" && timeout 60 "$wine" "$out/srt.exe" --backend "$ptw\\passthrough-test.dll" \
				--settings "$tmp/pt.json" -- "$@") >"$tmp/sc.out" 2>"$tmp/sc.err"
		}
		ptrun cmd.exe /c 'echo %GIT_SSH_COMMAND%'
		rc=$?
		[ $rc = 0 ] && [ "$(tr -d '\r' <"$tmp/sc.out")" = "ssh -o ControlMaster=no -o ControlPath=none -o ProxyCommand='\"Z:$pt/srt-connect.exe\" %h %p'" ]
		ok $? "K a command srt.exe runs gets GIT_SSH_COMMAND naming srt-connect.exe beside the backend module by its drive path, in double quotes (status $rc: $(tr -d '\r' <"$tmp/sc.out" | head -c 200) $(head -c 120 "$tmp/sc.err"))"
		printf 'through the run proxy\n' | ptrun "$ptw\\srt-connect.exe" 127.0.0.1 "${eport:-1}"
		rc=$?
		[ $rc = 0 ] && [ "$(cat "$tmp/sc.out")" = "through the run proxy
echo: end of input seen" ]
		ok $? "N in that command, srt-connect.exe goes through the run's own proxy (127.0.0.1 in windows.proxyPortRange, the run's token from HTTPS_PROXY) to an allowed host, the half-close included (status $rc: $(head -c 120 "$tmp/sc.err"))"
		printf 'SSH-2.0-test\r\n' | ptrun "$ptw\\srt-connect.exe" refused.example 22
		rc=$?
		[ $rc = 1 ] && ! [ -s "$tmp/sc.out" ] &&
			grep -q '^srt-connect: the proxy refused refused\.example:22: HTTP/1\.1 403 ' "$tmp/sc.err"
		ok $? "N and a host the run does not allow is refused by the run's proxy in srt-connect's words (status $rc: $(head -c 160 "$tmp/sc.err"))"
		kill $peers 2>/dev/null
		wait $peers 2>/dev/null
	fi

	s proxy --listen 192.0.2.1:8080 --decider-in 0 --decider-out 1
	rc=$?
	[ $rc = 2 ] && has "$tmp/err" "is not a loopback address"
	ok $? "N srt.exe proxy refuses a non-loopback --listen without --listen-any-interface (status $rc)"

	skip "N WFP blocks a direct connection" "Wine has no Windows Filtering Platform (fwpuclnt is a stub)"
	skip "K the command runs as the sandbox account" "Wine has no local accounts or LogonUser"
	skip "K write-restricted token for the sandbox account" "Wine does not enforce restricted tokens"
	skip "F a denied read is refused" "Wine does not enforce NTFS access control entries"
fi

echo "1..$n"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
