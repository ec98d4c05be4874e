#!/bin/bash
# Layering: which room of the tree may include which (doc/ARCHITECTURE.md).
#   - a file under backends/<X>/ includes nothing from another backend
#     folder backends/<Y>/ (backends/linux-common/ and common/ are shared);
#   - proxies/ includes no private core header (libsrt/);
#   - common/ includes nothing from libsrt/, proxies/ or backends/;
#   - libsrt/ includes nothing from backends/, and of proxies/ only the
#     proxy's interface (proxy.h, net-config.h, filter-chain.h, through
#     which the core builds the request-filter chain it lends the proxy,
#     ask.h, the broker of the application's ask callback, and tls.h, the
#     TLS module's interface it loads and lends the proxy);
#   - libsrt/, common/, proxies/ and cli/ call no Linux-only interface and
#     test no __linux__ outside their platform files (*-linux.c,
#     proxies/evloop-epoll.c; proxies/pump.h holds splice's own code under
#     HAVE_SPLICE), and the core names no backend in its automatic order
#     (libsrt/backend-choice.c, doctor.c: configure's SRT_AUTO_BACKENDS);
#   - backends/ include of proxies/ only the neutral headers the in-sandbox
#     bridge shares with the proxy (wire.h, pump.h), and those include no
#     header of the tree: the proxy's rooms (conn.h, layer.h, ...) stay
#     private to proxies/.
# An include is resolved as the compiler does with srt's flags: "x.h" next
# to the including file first, then include/ (the public headers, allowed
# everywhere), then the tree root; <x.h> from include/, then the root.
#
#   0004-layering.sh ROOT   check the tree at ROOT: print each violation as
#                           "file:line: why", exit 1 if there is any
#   0004-layering.sh        (make check) TAP: prove the check on small trees
#                           with one planted violation of each rule, then
#                           check $top_srcdir rule by rule
set -u

# violations ROOT: one "file:line: why" line per forbidden include
violations() {
	(
		cd "$1" || exit 2
		find libsrt common proxies backends -type f \( -name '*.c' -o -name '*.h' \) 2>/dev/null |
			LC_ALL=C sort | LC_ALL=C awk '
		function exists(p,   r, l) {
			r = (getline l < p)
			close(p)
			return r >= 0
		}
		# "a/b/../c/./d" -> "a/c/d"
		function norm(p,   n, i, k, part, out) {
			n = split(p, part, "/")
			k = 0
			for (i = 1; i <= n; i++) {
				if (part[i] == "" || part[i] == ".")
					continue
				if (part[i] == ".." && k > 0 && out[k] != "..") {
					k--
					continue
				}
				out[++k] = part[i]
			}
			p = ""
			for (i = 1; i <= k; i++)
				p = p (i > 1 ? "/" : "") out[i]
			return p
		}
		function dir(p) {
			sub(/\/[^\/]*$/, "", p)
			return p
		}
		{
			f = $0
			ln = 0
			while ((getline line < f) > 0) {
				ln++
				if (line !~ /^[ \t]*#[ \t]*include[ \t]*["<]/)
					continue
				sub(/^[ \t]*#[ \t]*include[ \t]*/, "", line)
				quote = substr(line, 1, 1)
				inc = substr(line, 2)
				sub(/[">].*$/, "", inc)
				if (inc == "")
					continue
				if (quote == "\"" && exists(dir(f) "/" inc))
					t = norm(dir(f) "/" inc)
				else if (exists("include/" inc))
					continue # a public header
				else if (exists(inc))
					t = norm(inc)
				else
					continue # a system or generated header
				why = ""
				if (f ~ /^backends\/[^\/]+\//) {
					x = f
					sub(/^backends\//, "", x)
					sub(/\/.*$/, "", x)
					if (t ~ /^backends\// && t !~ /^backends\/linux-common\// && index(t, "backends/" x "/") != 1)
						why = "backends/" x " may not include another backend\047s " t
					else if (t ~ /^proxies\// && t != "proxies/wire.h" && t != "proxies/pump.h")
						why = "backends may include of proxies/ only the neutral wire.h and pump.h, not " t
				} else if (f == "proxies/wire.h" || f == "proxies/pump.h") {
					why = "the neutral header " f " (shared with the bridge) may include no header of the tree, not " t
				} else if (f ~ /^proxies\//) {
					if (t ~ /^libsrt\//)
						why = "proxies may not include " t " (a private core header)"
				} else if (f ~ /^common\//) {
					if (t ~ /^(libsrt|proxies|backends)\//)
						why = "common may not include " t
				} else if (f ~ /^libsrt\//) {
					if (t ~ /^backends\//)
						why = "libsrt may not include " t " (OS code stays in backends)"
					else if (t ~ /^proxies\// && t != "proxies/proxy.h" && t != "proxies/net-config.h" &&
						 t != "proxies/filter-chain.h" && t != "proxies/ask.h" &&
						 t != "proxies/tls.h")
						why = "libsrt reaches the proxy only through its interface headers, not " t
				}
				if (why != "")
					print f ":" ln ": " why
			}
			close(f)
		}'
	)
}

# Linux-only calls, headers and macros (POSIX has none of them, or macOS
# lacks them), and the automatic order's backend names.
LINUX_ONLY='__linux__|/proc/|\<prctl\>|\<pipe2\>|\<renameat2\>|\<O_PATH\>|\<getrandom\>|\<epoll_|\<splice *\(|\<accept4\>|\<eventfd\>|\<timerfd_|\<signalfd\>|\<statx\>|\<close_range\>|\<execvpe\>|\<secure_getenv\>|\<MSG_CMSG_CLOEXEC\>|\<SOCK_CLOEXEC\>|\<SOCK_NONBLOCK\>|\<explicit_bzero\>|\<memrchr\>|_COARSE\>|\<sigtimedwait\>|\<SO_PEERCRED\>|\<SO_DOMAIN\>|\<SO_PROTOCOL\>|sys/(epoll|prctl|random|eventfd|timerfd|signalfd)\.h'

# linux_only ROOT: one "file:line: why" line per Linux-only use outside the
# platform files (comments are not code: their text is dropped first)
linux_only() {
	(
		cd "$1" || exit 2
		# one sed over every file (-s: line numbers count from each
		# file's start); for each hit it prints the file's name, the line
		# number and the line, which awk folds into one report line
		find libsrt common proxies cli -type f \( -name '*.c' -o -name '*.h' \) \
			! -name '*-linux.c' ! -path proxies/evloop-epoll.c ! -path proxies/pump.h 2>/dev/null |
			LC_ALL=C sort | xargs -d '\n' -r sed -s -E -e 's|/\*.*||' -e 's|^[[:space:]]*\*.*||' \
				-e 's|//.*||' -e "\\%$LINUX_ONLY%!d" -e F -e = |
			awk 'NR % 3 == 1 { f = $0 } NR % 3 == 2 { print f ":" $0 ": a Linux-only interface outside the platform files" }'
		for f in libsrt/backend-choice.c libsrt/doctor.c; do
			[ -f "$f" ] || continue
			sed -e 's|/\*.*||' -e 's|^[[:space:]]*\*.*||' "$f" |
				grep -nE '"(linux-bwrap|linux-landlock|macos-seatbelt|linux_bwrap\.so|linux_landlock\.so)"' |
				sed "s|^\([0-9]*\):.*|$f:\1: a backend name in the core (the order comes from configure)|"
		done
	)
}

if [ $# -gt 0 ]; then
	[ -d "$1" ] || exit 2
	out=$( { violations "$1"; linux_only "$1"; } ) || exit 2
	[ -z "$out" ] && exit 0
	printf '%s\n' "$out"
	exit 1
fi

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $*"; }
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }

work=$(mktemp -d "${TMPDIR:-/tmp}/srt-layering.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# put TREE FILE LINE...: write a file in a planted tree
put() {
	local tree=$1 file=$2
	shift 2
	case $file in */*) [ -d "$tree/${file%/*}" ] || mkdir -p "$tree/${file%/*}" ;; esac
	printf '%s\n' "$@" >>"$tree/$file"
}

# a tree that keeps every rule, with each kind of allowed include: made
# once (make_clean_tree), copied for each planted tree (two processes where
# writing it anew took thirty)
clean_tree() {
	mkdir -p "$1" && cp -R "$work/clean/." "$1"
}
make_clean_tree() {
	local t=$1
	put "$t" include/srt/srt.h '/* public */'
	put "$t" libsrt/policy.h '/* core */'
	put "$t" libsrt/run.c '#include "config.h"' '#include <stdio.h>' '#include <srt/srt.h>' \
		'#include "policy.h"' '#include "common/strv.h"' '#include "proxies/proxy.h"'
	put "$t" common/strv.h '/* shared */'
	put "$t" common/strv.c '#include "strv.h"' '#include "common/strv.h"' '#include "srt/srt.h"'
	put "$t" proxies/proxy.h '#include "common/strv.h"' '#include <srt/srt.h>'
	put "$t" proxies/conn.h '#include "proxies/proxy.h"'
	put "$t" proxies/wire.h '#include <sys/socket.h>'
	put "$t" backends/a/bridge.c '#include "proxies/wire.h"'
	put "$t" backends/linux-common/sibling.h '#include "common/strv.h"'
	put "$t" backends/a/a.h '/* a */'
	put "$t" backends/a/a.c '#include "a.h"' '#include "backends/a/a.h"' \
		'#include "backends/linux-common/sibling.h"' '#include "../linux-common/sibling.h"' \
		'#include "common/strv.h"' '#include "libsrt/policy.h"'
	put "$t" backends/b/b.h '/* b */'
	put "$t" backends/b/sub/b.c '#include "../b.h"' '#include "backends/b/b.h"'
}

# plant NAME FILE LINE WANT: a clean tree plus one include; the check must
# fail and name FILE:LINE
plant() {
	local name=$1 file=$2 line=$3 want=$4 t="$work/$1" out rc
	clean_tree "$t"
	put "$t" "$file" "$line"
	out=$(violations "$t")
	rc=0
	[ -n "$out" ] || rc=1
	if [ $rc = 0 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
		printf '%s\n' "$out" | grep -q "^$want: "; then
		ok "self-test: $name is flagged ($out)"
	else
		not_ok "self-test: $name is flagged"
		diag "wanted one line for $want, got:" "$out"
	fi
}

make_clean_tree "$work/clean"
out=$(violations "$work/clean")
if [ -z "$out" ]; then
	ok "self-test: a tree with only allowed includes passes"
else
	not_ok "self-test: a tree with only allowed includes passes"
	diag "$out"
fi
plant "a backend including another backend" backends/a/x.c '#include "backends/b/b.h"' \
	backends/a/x.c:1
plant "a backend including another backend by a relative path" backends/a/y.c \
	'#include "../b/b.h"' backends/a/y.c:1
plant "a backend header including another backend" backends/b/sub/z.h \
	'#  include <backends/a/a.h>' backends/b/sub/z.h:1
plant "proxies including a core header" proxies/route.h '#include "libsrt/policy.h"' \
	proxies/route.h:1
plant "common including the core" common/aside.c '#include "libsrt/policy.h"' common/aside.c:1
plant "common including proxies" common/aside.h '#include "proxies/proxy.h"' common/aside.h:1
plant "common including a backend" common/domain.c '#include "backends/linux-common/sibling.h"' \
	common/domain.c:1
plant "the core including a backend" libsrt/loader.c '#include "backends/a/a.h"' libsrt/loader.c:1
plant "a backend including a private proxy header" backends/a/z.c '#include "proxies/conn.h"' \
	backends/a/z.c:1
plant "the neutral wire header including the proxy" proxies/wire.h '#include "proxies/proxy.h"' \
	proxies/wire.h:2
plant "the core including a private proxy header" libsrt/glue.c '#include "proxies/conn.h"' \
	libsrt/glue.c:1

# lplant NAME FILE LINE WANT: as plant, for the Linux-only check
lplant() {
	local name=$1 file=$2 line=$3 want=$4 t="$work/l-$1" out
	clean_tree "$t"
	put "$t" "$file" "$line"
	out=$(linux_only "$t")
	if [ -n "$out" ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
		printf '%s\n' "$out" | grep -q "^$want: "; then
		ok "self-test: $name is flagged ($out)"
	else
		not_ok "self-test: $name is flagged"
		diag "wanted one line for $want, got:" "$out"
	fi
}
out=$(linux_only "$work/clean")
if [ -z "$out" ]; then
	ok "self-test: a tree without Linux-only calls passes the platform check"
else
	not_ok "self-test: a tree without Linux-only calls passes the platform check"
	diag "$out"
fi
lplant "an epoll call in the proxy" proxies/loop.c '	n = epoll_wait(fd, ev, 8, -1);' proxies/loop.c:1
lplant "an __linux__ test in the core" libsrt/x.c '#ifdef __linux__' libsrt/x.c:1
lplant "a /proc path in the cli" cli/x.c '	open("/proc/self/fd/3", O_RDONLY);' cli/x.c:1
lplant "getrandom in common" common/x.c '#include <sys/random.h>' common/x.c:1
lplant "a backend name in the automatic order" libsrt/backend-choice.c \
	'static const char *const order[] = { "linux-bwrap" };' libsrt/backend-choice.c:1
t="$work/l-platform"
clean_tree "$t"
put "$t" libsrt/platform-linux.c '	return prctl(PR_SET_PDEATHSIG, SIGKILL);'
put "$t" proxies/x.c '	/* splice(2) and epoll_wait are named in a comment only */'
if [ -z "$(linux_only "$t")" ]; then
	ok "self-test: the platform files, and comments, may name Linux calls"
else
	not_ok "self-test: the platform files, and comments, may name Linux calls"
	diag "$(linux_only "$t")"
fi
if out=$(bash "$0" "$work/plant-missing-root" 2>&1); then
	not_ok "self-test: a root that does not exist fails the check"
else
	ok "self-test: a root that does not exist fails the check"
fi

# the tree itself, rule by rule
all=$(violations "$top_srcdir")
rule() { # rule DESCRIPTION PREFIX
	local hits
	hits=$(printf '%s\n' "$all" | grep "^$2" || true)
	if [ -z "$hits" ]; then
		ok "$1"
	else
		not_ok "$1"
		diag "$hits"
	fi
}
if [ -d "$top_srcdir/libsrt" ] && [ -d "$top_srcdir/backends" ]; then
	ok "the tree to check is at $top_srcdir"
else
	not_ok "the tree to check is at $top_srcdir"
fi
rule "backends/<X>/ include no other backend folder (linux-common and common are shared), of proxies/ only wire.h and pump.h" 'backends/'
rule "proxies/ include no private core header (libsrt/); wire.h and pump.h include no tree header" 'proxies/'
rule "common/ includes nothing from libsrt/, proxies/ or backends/" 'common/'
rule "libsrt/ includes nothing from backends/ and only the proxy's interface" 'libsrt/'
plat=$(linux_only "$top_srcdir")
if [ -z "$plat" ]; then
	ok "libsrt/, common/, proxies/ and cli/ call no Linux-only interface outside their platform files, and the core names no backend in its automatic order"
else
	not_ok "libsrt/, common/, proxies/ and cli/ call no Linux-only interface outside their platform files, and the core names no backend in its automatic order"
	diag "$plat"
fi
echo "1..$n"
# the "not ok" lines carry the verdict, as in the other integration tests
exit 0
