# Verify the windows-wfp backend's enforcement on a Windows machine (what
# Wine cannot show). Run in an elevated PowerShell from the folder holding
# srt-win.exe (win/out of win/build.sh):
#     powershell -ExecutionPolicy Bypass -File verify.ps1
# It installs the sandbox account and WFP filters, runs its checks (the
# last two through srt.exe and its proxy, so it needs the internet and
# curl.exe, which Windows 10 and later ship; the ssh check runs git.exe
# when it is installed), prints one PASS/FAIL line each and a total, and
# uninstalls (unless -Keep). NONE OF IT HAS RUN YET (win/README).
param([switch]$Keep, [int]$ProxyPort = 60080)

$ErrorActionPreference = 'Stop'
$exe = Join-Path $PSScriptRoot 'srt-win.exe'
$srt = Join-Path $PSScriptRoot 'srt.exe'
$work = Join-Path $env:TEMP ('srt-verify-' + [guid]::NewGuid())
$fail = 0

function Check($name, $cond) {
	if ($cond) { Write-Output "PASS $name" } else { Write-Output "FAIL $name"; $script:fail++ }
}

New-Item -ItemType Directory -Force -Path "$work\proj", "$work\secret" | Out-Null
Set-Content -Path "$work\secret\key.txt" -Value 'canary'
$w = $work -replace '\\', '/'

& $exe windows-install --ports "$ProxyPort-$($ProxyPort + 9)"
Check 'windows-install succeeds' ($LASTEXITCODE -eq 0)
Check 'WFP filters exist (netsh wfp show filters)' `
	((netsh wfp show filters file=- | Out-String) -match 'srt: block the sandbox account')

# 1. a denied read is refused
& $exe run --cwd "$w/proj" --allow-write "$w/proj" --deny-read "$w/secret" -- `
	cmd.exe /c "type $work\secret\key.txt > $work\proj\leak.txt"
Check 'denyRead: the secret is not readable' `
	(-not (Test-Path "$work\proj\leak.txt") -or -not ((Get-Content "$work\proj\leak.txt") -match 'canary'))

# 2. a write outside the write roots is refused, inside is allowed
& $exe run --cwd "$w/proj" --allow-write "$w/proj" -- `
	cmd.exe /c "echo x> $work\outside.txt & echo y> $work\proj\inside.txt"
Check 'allowWrite: a write inside the root lands' (Test-Path "$work\proj\inside.txt")
Check 'allowWrite: a write outside the roots is refused' (-not (Test-Path "$work\outside.txt"))

# 3. a direct connection is blocked
& $exe run --cwd "$w/proj" --allow-write "$w/proj" -- powershell.exe -NoProfile -Command `
	"try { (New-Object Net.Sockets.TcpClient).Connect('1.1.1.1', 443); exit 0 } catch { exit 7 }"
Check 'WFP: a direct connection to 1.1.1.1:443 is blocked' ($LASTEXITCODE -eq 7)

# 4. loopback inside the proxy range is allowed (a listener stands in for the proxy)
$l = [Net.Sockets.TcpListener]::new([Net.IPAddress]::Loopback, $ProxyPort)
$l.Start()
& $exe run --cwd "$w/proj" --allow-write "$w/proj" -- powershell.exe -NoProfile -Command `
	"try { (New-Object Net.Sockets.TcpClient).Connect('127.0.0.1', $ProxyPort); exit 0 } catch { exit 7 }"
Check 'WFP: the proxy port range on loopback is reachable' ($LASTEXITCODE -eq 0)
$l.Stop()

# 5. through srt.exe: its proxy on the installed range, example.com allowed,
# example.org not (a direct connection is blocked, item 3, so these
# requests reach the network only through the proxy)
$settings = "$work\settings.json"
Set-Content -Path $settings -Value ('{"network": {"allowedDomains": ["example.com"], "deniedDomains": []}, ' +
	'"filesystem": {"denyRead": [], "allowWrite": ["."], "denyWrite": []}, ' +
	'"windows": {"proxyPortRange": [' + $ProxyPort + ', ' + ($ProxyPort + 9) + ']}}')
Push-Location "$work\proj"
$code = & $srt --settings $settings -- curl.exe -s -o NUL -w '%{http_code}' http://example.com/
Check "proxy: an allowed plain-HTTP request is served (status $code)" ($code -eq '200')
$code = & $srt --settings $settings -- curl.exe -s -o NUL -w '%{http_code}' https://example.com/
Check "proxy: an allowed HTTPS request goes through CONNECT (status $code)" ($code -eq '200')
$code = & $srt --settings $settings -- curl.exe -s -o NUL -w '%{http_code}' http://example.org/
Check "proxy: a host not allowed is refused by the proxy (status $code)" ($code -eq '403')
$code = & $srt --settings $settings -- curl.exe -s -o NUL -w '%{http_code}' --noproxy '*' http://example.com/
Check "proxy: the same request around the proxy is blocked (status $code)" ($code -ne '200')

# 6. ssh through the proxy: GIT_SSH_COMMAND names srt-connect.exe (beside
# windows_wfp.dll) by its drive path; a host not allowed is refused by the
# proxy in srt-connect's words; with git installed, ssh.exe runs it as its
# ProxyCommand to github.com, which answers a key it does not know with
# "Permission denied (publickey)": ssh spoke to it through the tunnel
$sshset = "$work\ssh.json"
Set-Content -Path $sshset -Value ('{"network": {"allowedDomains": ["github.com"], "deniedDomains": []}, ' +
	'"filesystem": {"denyRead": [], "allowWrite": ["."], "denyWrite": []}, ' +
	'"windows": {"proxyPortRange": [' + $ProxyPort + ', ' + ($ProxyPort + 9) + ']}}')
$v = & $srt --settings $sshset -- powershell.exe -NoProfile -Command '$env:GIT_SSH_COMMAND'
Check "ssh: GIT_SSH_COMMAND names srt-connect.exe ($v)" `
	("$v" -match 'ProxyCommand=''"[A-Za-z]:/[^"]*/srt-connect\.exe" %h %p''$')
$v = & $srt --settings $sshset -- powershell.exe -NoProfile -Command `
	'$c = [regex]::Match($env:GIT_SSH_COMMAND, ''"([^"]*)"'').Groups[1].Value; & $c example.org 22 2>&1 | Out-String'
Check "ssh: a host not allowed is refused by the proxy ($v)" ("$v" -match 'srt-connect: the proxy refused example\.org:22: HTTP/1\.1 403')
if (Get-Command git.exe -ErrorAction SilentlyContinue) {
	$v = & $srt --settings $sshset -- powershell.exe -NoProfile -Command `
		'$env:GIT_SSH_COMMAND += '' -o BatchMode=yes -o StrictHostKeyChecking=accept-new -o UserKnownHostsFile=NUL''; git ls-remote git@github.com:git/git.git 2>&1 | Out-String'
	Check "ssh: git's ssh reaches github.com through srt-connect.exe ($v)" ("$v" -match 'Permission denied \(publickey\)|refs/heads/')
} else {
	Write-Output 'SKIP ssh: git reaching github.com through srt-connect.exe (git.exe is not installed)'
}
Pop-Location

if (-not $Keep) {
	& $exe windows-uninstall
	Check 'windows-uninstall removes every object' `
		($LASTEXITCODE -eq 0 -and -not ((netsh wfp show filters file=- | Out-String) -match 'srt: '))
}
Remove-Item -Recurse -Force $work
Write-Output "$fail failed"
exit [int]($fail -ne 0)
