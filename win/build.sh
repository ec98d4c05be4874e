#!/bin/sh
# Build srt's Windows pieces on Debian with mingw-w64, from Debian packages
# only. Output: win/out/. Dependencies Debian ships no mingw build of
# (cJSON, libyaml, c-ares, libltdl, PCRE2, mbedTLS) are built from their Debian source
# packages (apt-get source, through a deb-src entry for the archive the
# system already uses) and cached under win/deps/, so a second run only
# rebuilds srt's own files.
#
# What is built: srt.exe and libsrt-0.dll (the core: settings, policy,
# module loader, CLI, the proxy's code; see "the core" below), the helper
# srt-win.exe and the backend module windows_wfp.dll (the plan of
# backends/windows-wfp and the Win32 calls that apply it, and the process
# slots of backend ABI 1.5 that run the command in a kill-on-close job
# object), spawn-test.exe (drives those slots under Wine), loop-test.exe
# (the core's Windows platform file and the proxy's WSAPoll loop and
# wakeup, under Wine), srt-connect.exe (ssh's ProxyCommand through the
# proxy, which the core names in GIT_SSH_COMMAND), the TLS module
# mbedtls.dll, the credentials module credentials.dll, the test drivers
# proxy-client.exe, listen-parent.exe, tls-bad.dll and
# test/passthrough-test.dll (a backend that enforces nothing, for
# win/test.sh only), and the libraries above. win/README says what of it
# has run where.
#
# Environment: SRT_WIN_NO_APT=1 never calls apt-get (the packages must be
# installed); SRT_WIN_DEPS=DIR keeps the library cache in DIR (default
# win/deps; a CI that copies the tree points it at a lasting place); JOBS
# (default 2). Each library is built once.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
deps=${SRT_WIN_DEPS:-$here/deps}
out=$here/out
host=x86_64-w64-mingw32
cc=$host-gcc
jobs=${JOBS:-2}
prefix=$deps/prefix

say() { printf 'win/build.sh: %s\n' "$*" >&2; }

# ---- packages ----------------------------------------------------------
need_pkgs=
for p in gcc-mingw-w64-x86-64 wine64 dpkg-dev cmake autoconf automake libtool; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || need_pkgs="$need_pkgs $p"
done
if [ -n "$need_pkgs" ]; then
	[ "${SRT_WIN_NO_APT:-}" = 1 ] && { say "missing packages:$need_pkgs (SRT_WIN_NO_APT=1)"; exit 1; }
	say "installing$need_pkgs"
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y \
		--no-install-recommends $need_pkgs >/dev/null
fi

# ---- Debian sources of the libraries ------------------------------------
# A deb-src entry for the archive and suites the system's own deb entry
# names (deb822 debian.sources or a one-line sources.list).
add_deb_src() {
	apt-cache showsrc cjson >/dev/null 2>&1 && return 0
	[ "${SRT_WIN_NO_APT:-}" = 1 ] && { say "no deb-src entry (SRT_WIN_NO_APT=1)"; exit 1; }
	src=/etc/apt/sources.list.d/srt-win-src.sources
	if [ -f /etc/apt/sources.list.d/debian.sources ]; then
		awk 'BEGIN{RS="";ORS="\n\n"} /Types: deb/ && !/deb-src/ {sub(/Types: deb/,"Types: deb-src"); print}' \
			/etc/apt/sources.list.d/debian.sources > "$src"
	else
		grep -h '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' > "${src%.sources}.list"
	fi
	say "added deb-src entries ($src), apt-get update"
	apt-get -o DPkg::Lock::Timeout=600 update >/dev/null
}

# fetch SRCPKG: unpack the Debian source of SRCPKG under win/deps/src once.
fetch() {
	if ! ls -d "$deps/src/$1"-*/ >/dev/null 2>&1; then
		add_deb_src
		mkdir -p "$deps/src"
		# the newest version first; when the archive lists a version
		# its pool no longer serves (a security update a mirror or
		# snapshot lacks), the others it lists, newest first
		(cd "$deps/src" && { apt-get source -qq "$1" >/dev/null 2>&1 ||
			for v in $(apt-cache showsrc "$1" | sed -n 's/^Version: //p' | sort -rV); do
				apt-get source -qq "$1=$v" >/dev/null 2>&1 && break
				false
			done; }) ||
			{ say "apt-get source $1 failed"; exit 1; }
	fi
	ls -d "$deps/src/$1"-*/ | head -n1
}

# Autotools libraries: static, into $prefix.
autotools_dep() { # name srcpkg subdir configure-args...
	name=$1 pkg=$2 sub=$3
	shift 3
	[ -f "$deps/$name.stamp" ] && return 0
	dir=$(fetch "$pkg")$sub
	say "building $name from $dir"
	[ -x "$dir/configure" ] || (cd "$dir" && autoreconf -fi >/dev/null 2>&1) ||
		{ say "$name: autoreconf failed in $dir"; exit 1; }
	rm -rf "$deps/build-$name" && mkdir -p "$deps/build-$name"
	(cd "$deps/build-$name" && "$dir/configure" --host=$host --prefix="$prefix" \
		--disable-shared --enable-static "$@" >configure.log 2>&1 &&
		make -j"$jobs" >make.log 2>&1 && make install >install.log 2>&1) ||
		{ say "$name failed: see $deps/build-$name/*.log"; exit 1; }
	touch "$deps/$name.stamp"
}

cjson_dep() {
	[ -f "$deps/cjson-static.stamp" ] && return 0
	dir=$(fetch cjson)
	say "building cJSON from $dir"
	mkdir -p "$prefix/lib" "$prefix/include/cjson" "$prefix/lib/pkgconfig"
	$cc -O2 -DCJSON_HIDE_SYMBOLS -c "$dir/cJSON.c" -o "$deps/cJSON.o"
	$host-ar rcs "$prefix/lib/libcjson.a" "$deps/cJSON.o"
	cp "$dir/cJSON.h" "$prefix/include/cjson/"
	printf 'prefix=%s\nName: libcjson\nDescription: cJSON\nVersion: 1.7\nCflags: -I${prefix}/include -DCJSON_HIDE_SYMBOLS\nLibs: -L${prefix}/lib -lcjson\n' \
		"$prefix" > "$prefix/lib/pkgconfig/libcjson.pc"
	touch "$deps/cjson-static.stamp"
}

# libyaml's Debian source is its git tree (no configure): its few files
# are compiled directly, with the version its configure.ac would define.
yaml_dep() {
	[ -f "$deps/yaml.stamp" ] && return 0
	dir=$(fetch libyaml)
	v=$(basename "$dir" | sed 's/^libyaml-//')
	say "building libyaml $v from $dir"
	mkdir -p "$deps/build-yaml" "$prefix/lib" "$prefix/include"
	for f in "$dir"/src/*.c; do
		$cc -O2 -DYAML_DECLARE_STATIC -DYAML_VERSION_MAJOR="${v%%.*}" \
			-DYAML_VERSION_MINOR="$(echo "$v" | cut -d. -f2)" \
			-DYAML_VERSION_PATCH="$(echo "$v" | cut -d. -f3)" \
			-DYAML_VERSION_STRING="\"$v\"" -I"$dir/include" \
			-c "$f" -o "$deps/build-yaml/$(basename "$f" .c).o"
	done
	$host-ar rcs "$prefix/lib/libyaml.a" "$deps"/build-yaml/*.o
	cp "$dir/include/yaml.h" "$prefix/include/"
	printf 'prefix=%s\nName: yaml-0.1\nDescription: libyaml\nVersion: %s\nCflags: -I${prefix}/include -DYAML_DECLARE_STATIC\nLibs: -L${prefix}/lib -lyaml\n' \
		"$prefix" "$v" > "$prefix/lib/pkgconfig/yaml-0.1.pc"
	touch "$deps/yaml.stamp"
}

# c-ares compiled directly, with the settings c-ares ships for Windows
# builds without a configure step (src/lib/config-win32.h, what its own
# Makefile.m32 and Makefile.msvc use) and the flags its CMake build sets
# for Windows: CMake's configure ran about 200 compile probes, over a
# minute of CPU on a 2-CPU machine for answers that never change for
# mingw-w64. The public ares_build.h in the source is the one for
# compilers without a configure step, whose mingw branch names __int64
# before anything declares it, so a mingw one is written beside the other
# installed headers (the library's own files include "ares.h" from there:
# nothing puts the source's include/ on the path). 1.18.1's
# inet_net_pton.c uses INADDRSZ, which only arpa/nameser.h defines
# (Windows has none): 4, an IPv4 address's size.
cares_dep() {
	[ -f "$deps/cares-direct.stamp" ] && return 0
	dir=$(fetch c-ares)
	say "building c-ares from $dir"
	rm -rf "$deps/build-cares" && mkdir -p "$deps/build-cares" "$prefix/lib" "$prefix/include"
	for h in ares.h ares_dns.h ares_nameser.h ares_rules.h ares_version.h; do
		cp "$dir/include/$h" "$prefix/include/" || { say "c-ares: no include/$h in $dir"; exit 1; }
	done
	cat > "$prefix/include/ares_build.h" <<-'EOF'
	/* win/build.sh: c-ares' build header for mingw-w64 */
	#ifndef __CARES_BUILD_H
	#define __CARES_BUILD_H
	#define CARES_TYPEOF_ARES_SOCKLEN_T int
	#define CARES_TYPEOF_ARES_SSIZE_T ssize_t
	#include <sys/types.h>
	#include <winsock2.h>
	#include <ws2tcpip.h>
	#include <windows.h>
	typedef CARES_TYPEOF_ARES_SOCKLEN_T ares_socklen_t;
	typedef CARES_TYPEOF_ARES_SSIZE_T ares_ssize_t;
	#endif
	EOF
	# the library's sources, as its Makefile.inc lists them
	srcs=$(sed -n '/^CSOURCES/,/^$/p' "$dir/src/lib/Makefile.inc" | tr -d '\\' | sed 's/^CSOURCES *=//')
	[ -n "$srcs" ] || { say "c-ares: no CSOURCES in $dir/src/lib/Makefile.inc"; exit 1; }
	printf '%s\n' $srcs | (cd "$deps/build-cares" && xargs -P"$jobs" -I{} $cc -O2 -DCARES_STATICLIB \
		-DWIN32_LEAN_AND_MEAN -D_WIN32_WINNT=0x0600 -DHAVE_STRCASECMP -DHAVE_STRNCASECMP -DINADDRSZ=4 \
		-I"$prefix/include" -I"$dir/src/lib" -c "$dir/src/lib/{}" -o "{}.o") \
		>"$deps/build-cares/make.log" 2>&1 &&
		rm -f "$prefix/lib/libcares.a" && $host-ar rcs "$prefix/lib/libcares.a" "$deps"/build-cares/*.o ||
		{ say "c-ares failed: see $deps/build-cares/make.log"; exit 1; }
	touch "$deps/cares-direct.stamp"
}

# mbedTLS for the TLS module only (plugins/tls/; as on Linux, neither
# libsrt nor srt.exe links it), through its CMake build, configured as
# Debian's own libmbedtls-dev is (debian/rules sets these options in
# config.h before building; threading is winpthreads' here).
mbedtls_dep() {
	[ -f "$deps/mbedtls.stamp" ] && return 0
	dir=$(fetch mbedtls)
	say "building mbedTLS from $dir"
	for o in MBEDTLS_DEPRECATED_WARNING MBEDTLS_HAVEGE_C MBEDTLS_MD2_C MBEDTLS_MD4_C \
		MBEDTLS_THREADING_C MBEDTLS_THREADING_PTHREAD MBEDTLS_CMAC_C MBEDTLS_SSL_DTLS_SRTP; do
		(cd "$dir" && python3 scripts/config.py set $o) || { say "mbedTLS: cannot set $o"; exit 1; }
	done
	rm -rf "$deps/build-mbedtls" && mkdir -p "$deps/build-mbedtls"
	(cd "$deps/build-mbedtls" && cmake -DCMAKE_SYSTEM_NAME=Windows -DCMAKE_C_COMPILER=$cc \
		-DCMAKE_RC_COMPILER=$host-windres -DUSE_STATIC_MBEDTLS_LIBRARY=ON \
		-DUSE_SHARED_MBEDTLS_LIBRARY=OFF -DENABLE_PROGRAMS=OFF -DENABLE_TESTING=OFF \
		-DMBEDTLS_FATAL_WARNINGS=OFF -DCMAKE_BUILD_TYPE=Release \
		-DCMAKE_INSTALL_PREFIX="$prefix" "$dir" >cmake.log 2>&1 &&
		make -j"$jobs" >make.log 2>&1 && make install >install.log 2>&1) ||
		{ say "mbedTLS failed: see $deps/build-mbedtls/*.log"; exit 1; }
	touch "$deps/mbedtls.stamp"
}

mkdir -p "$deps" "$out"
t0=$(date +%s)
cjson_dep
yaml_dep
cares_dep
autotools_dep ltdl libtool "libltdl" --enable-ltdl-install
# PCRE2, its 8-bit library (no JIT, as the Linux module uses none): the
# credentials module's engine, and the settings check's for extract
# patterns (libsrt/extract-pcre2.c), so both judge a pattern alike.
# PCRE2_STATIC: its own programs (pcre2test, ...) link the static library
# too, as srt's files do
autotools_dep pcre2 pcre2 "" --enable-pcre2-8 --disable-pcre2-16 --disable-pcre2-32 \
	--disable-jit --disable-pcre2grep-libz --disable-pcre2grep-libbz2 CPPFLAGS=-DPCRE2_STATIC
mbedtls_dep
say "libraries ready in $prefix ($(( $(date +%s) - t0 )) s)"

# ---- srt's own Windows pieces ---------------------------------------------
# A config.h of our own: the Linux one belongs to another host.
mkdir -p "$out/gen"
# Rewritten only when it changes, so the objects below stay valid. The
# module directories are empty: on Windows modules are found beside the
# libsrt DLL (libsrt/platform-windows.c).
{
	printf '/* win/build.sh: the mingw-w64 build of the Windows pieces */\n#define PACKAGE_VERSION "%s"\n' \
		"$(sed -n 's/^AC_INIT(\[srt\], \[\([^]]*\)\].*/\1/p' "$top/configure.ac")"
	printf '#define SRT_PLATFORM "windows"\n#define SRT_EVLOOP_NATIVE "poll"\n#define SRT_NO_SPLICE 1\n'
	printf '#define SRT_AUTO_BACKENDS "windows-wfp",\n#define SRT_BACKENDDIR ""\n#define SRT_FILTERDIR ""\n'
	printf '#define SRT_TLSDIR ""\n#define SRT_PKGLIBDIR ""\n'
} > "$out/gen/config.h.new"
if cmp -s "$out/gen/config.h.new" "$out/gen/config.h"; then
	rm -f "$out/gen/config.h.new"
else
	mv "$out/gen/config.h.new" "$out/gen/config.h"
fi
CFLAGS="-std=gnu11 -O2 -Wall -Wextra -Wno-unused-parameter -Werror -I$out/gen -I$top/include -I$top"
# the core's portable files see Winsock under the POSIX header names
# (win/include/README says what each maps to)
CORE_CFLAGS="$CFLAGS -Wshadow -Wmissing-prototypes -Wstrict-prototypes -D_WIN32_WINNT=0x0A00 -I$here/include"
WINLIBS="-lfwpuclnt -lnetapi32 -lcrypt32 -ladvapi32 -luserenv"
PLAN="$top/backends/windows-wfp/plan.c $top/backends/windows-wfp/win32.c $top/common/protected.c"

say "building srt-win.exe"
$cc $CFLAGS -o "$out/srt-win.exe" "$top/backends/windows-wfp/srt-win.c" $PLAN \
	"$top/libsrt/error.c" $WINLIBS
say "building windows_wfp.dll"
$cc $CFLAGS -shared -o "$out/windows_wfp.dll" "$top/backends/windows-wfp/module.c" $PLAN \
	"$top/libsrt/error.c" $WINLIBS
# the module's process slots driven as the core calls them (win/test.sh)
say "building spawn-test.exe"
$cc $CFLAGS -o "$out/spawn-test.exe" "$here/spawn-test.c"
# the core's Windows platform file, the proxy's loop on WSAPoll and its
# wakeup (win/test.sh runs it)
say "building loop-test.exe"
$cc $CORE_CFLAGS -o "$out/loop-test.exe" "$here/loop-test.c" "$top/common/platform-windows.c" \
	"$top/common/posix-windows.c" "$top/common/winpath.c" \
	"$top/proxies/wakeup-windows.c" "$top/proxies/evloop-poll.c" "$top/proxies/evloop.c" \
	-static -lws2_32 -lbcrypt -lpthread
# a client of srt.exe's proxy on Winsock alone (win/test.sh)
say "building proxy-client.exe"
$cc $CFLAGS -o "$out/proxy-client.exe" "$here/proxy-client.c" -lws2_32
# a parent handing srt.exe proxy an inherited listening socket (--listen-fd)
say "building listen-parent.exe"
$cc $CFLAGS -o "$out/listen-parent.exe" "$here/listen-parent.c" -lws2_32

# ---- the core: libsrt DLL and srt.exe -------------------------------------
# The core's portable files with the Windows platform files
# (common/platform-windows.c, libsrt/platform-windows.c,
# cli/platform-windows.c, proxies/wakeup-windows.c) and
# common/posix-windows.c, which does what Windows has of the POSIX calls
# the portable files make and refuses the rest (ENOSYS, "not supported on
# Windows"). libsrt-0.dll exports exactly the public srt_* functions (a
# .def made from the objects, as -export-symbols-regex does on Linux);
# srt.exe links it and carries its own copy of the platform files, as the
# CLI may call nothing private of libsrt. Each object is rebuilt when its
# source or a header is newer.
LIB_SRC="$(cd "$top" && ls libsrt/*.c proxies/*.c common/*.c | grep -v -e '-linux\.c' -e '-posix\.c' \
	-e 'evloop-epoll' -e 'evloop-kqueue' -e 'proxies/connect[.-]' -e 'gitguard-sweep')"
CLI_SRC="cli/srt.c cli/direct.c cli/proxy.c cli/platform-windows.c common/platform-windows.c common/posix-windows.c common/winpath.c"
# -Wno-format: the core's printf-like functions declare format(printf),
# which gcc reads as Microsoft's printf on mingw, while the core is built
# with mingw's C99 printf (__USE_MINGW_ANSI_STDIO: %zu and %llu work); the
# Linux build checks the formats. -Wno-sign-compare: Winsock's SOCKET (and
# c-ares' socket type) is an unsigned 64-bit handle the core keeps in an
# int (see win/include/README). NAME_MAX: NTFS's longest name, which
# mingw's limits.h leaves out.
CORE_CC="$CORE_CFLAGS -Wno-format -Wno-sign-compare -D_FILE_OFFSET_BITS=64 -DNAME_MAX=255 -D_GNU_SOURCE -D__USE_MINGW_ACCESS -D__USE_MINGW_ANSI_STDIO=1 -DYAML_DECLARE_STATIC -DCARES_STATICLIB -DCJSON_HIDE_SYMBOLS -DPCRE2_STATIC -I$prefix/include"
newest_h=$(ls -t "$top"/libsrt/*.h "$top"/proxies/*.h "$top"/common/*.h "$top"/cli/*.h \
	"$top"/include/srt/*.h "$here"/include/*.h "$here"/include/*/*.h "$out/gen/config.h" | head -n1)
obj() { # src -> object path
	echo "$out/obj/$(echo "$1" | tr / _ | sed 's/\.c$/.o/')"
}
compile() { # sources...
	for f in "$@"; do
		o=$(obj "$f")
		if [ ! -f "$o" ] || [ "$top/$f" -nt "$o" ] || [ "$newest_h" -nt "$o" ]; then
			$cc $CORE_CC -c "$top/$f" -o "$o" || { say "core: $f does not compile"; exit 1; }
		fi
	done
}
mkdir -p "$out/obj"
say "building libsrt-0.dll and srt.exe"
compile $LIB_SRC $CLI_SRC
lib_objs=$(for f in $LIB_SRC; do obj "$f"; done)
cli_objs=$(for f in $CLI_SRC; do obj "$f"; done)
{
	echo "EXPORTS"
	$host-nm -g --defined-only $lib_objs | awk '$2 == "T" && $3 ~ /^srt_[a-z]/ {print "\t" $3}' | sort -u
} > "$out/obj/libsrt.def"
CORE_LIBS="-L$prefix/lib -lcares -lltdl -lcjson -lyaml -lpcre2-8 -liphlpapi -lws2_32 -lbcrypt -ladvapi32"
$cc -shared -o "$out/libsrt-0.dll" "$out/obj/libsrt.def" $lib_objs \
	-Wl,--out-implib,"$out/obj/libsrt.dll.a" $CORE_LIBS -static -lpthread
$cc -o "$out/srt.exe" $cli_objs "$out/obj/libsrt.dll.a" -lws2_32 -lbcrypt -static -lpthread

# ---- srt-connect.exe: ssh's ProxyCommand through the proxy ----------------
# proxies/connect.c with the Windows relay (proxies/connect-relay-windows.c:
# a thread per direction, as no Windows call waits on ssh's pipes and a
# socket together) and the sockets of common/platform-windows.c. Beside
# windows_wfp.dll, where the core looks for it to set GIT_SSH_COMMAND
# (libsrt/child-env.c).
say "building srt-connect.exe"
$cc $CORE_CC -o "$out/srt-connect.exe" "$top/proxies/connect.c" "$top/proxies/connect-relay-windows.c" \
	"$top/proxies/auth.c" "$top/common/platform-windows.c" "$top/common/posix-windows.c" \
	"$top/common/winpath.c" -lws2_32 -lbcrypt -ladvapi32 -static -lpthread

# passthrough-test.dll: a backend module for win/test.sh only, which
# ENFORCES NOTHING (it runs the command as it is, declaring the loopback
# proxy of windows-wfp), so the core's side of a run can be shown under
# Wine; kept apart in test/, loaded by its absolute path only
mkdir -p "$out/test"
$cc $CFLAGS -shared -o "$out/test/passthrough-test.dll" "$here/passthrough-test.c" \
	"$top/libsrt/error.c" -static

# ---- the TLS module: mbedtls.dll ------------------------------------------
# plugins/tls/ with mbedTLS linked in, beside libsrt-0.dll where the core
# looks for modules; it exports only srt_tls_entry (as
# -export-symbols-regex does on Linux). The POSIX calls it makes that
# mingw lacks (sysconf, the signal mask of its crypto threads) come from
# common/posix-windows.c, its roots from Windows' store
# (plugins/tls/roots-windows.c). tls-bad.dll: a file that is no TLS module
# of this ABI, which the loader must refuse (win/test.sh).
say "building mbedtls.dll"
printf 'EXPORTS\n\tsrt_tls_entry DATA\n' >"$out/obj/tls.def"
$cc $CORE_CC -D_POSIX_THREAD_SAFE_FUNCTIONS=200112L -shared -o "$out/mbedtls.dll" "$out/obj/tls.def" \
	"$top/plugins/tls/tls.c" "$top/plugins/tls/roots-windows.c" "$top/common/posix-windows.c" \
	"$top/common/platform-windows.c" "$top/common/winpath.c" -L"$prefix/lib" -lmbedtls -lmbedx509 -lmbedcrypto \
	-lcrypt32 -lws2_32 -lbcrypt -ladvapi32 -static -lpthread
$cc $CORE_CC -shared -o "$out/tls-bad.dll" "$out/obj/tls.def" "$here/tls-bad.c"

# ---- the credentials module: credentials.dll -------------------------------
# plugins/filters/credentials/ with PCRE2 and cJSON linked in, beside
# libsrt-0.dll where the core looks for filter modules; it exports what
# its -export-symbols-regex exports on Linux: srt_filter_entry and the
# wrap-time masking (common/credmask.h). As on Linux it needs nothing of
# libsrt: only the platform files (random bytes, wiping).
say "building credentials.dll"
printf 'EXPORTS\n\tsrt_filter_entry DATA\n\tsrt_credentials_mask\n' >"$out/obj/credentials.def"
$cc $CORE_CC -shared -o "$out/credentials.dll" "$out/obj/credentials.def" \
	"$top/plugins/filters/credentials/credentials.c" "$top/plugins/filters/credentials/mask.c" \
	"$top/plugins/filters/credentials/subst.c" "$top/plugins/filters/credentials/sigv4.c" \
	"$top/plugins/filters/credentials/sha256.c" "$top/common/platform-windows.c" \
	"$top/common/posix-windows.c" "$top/common/winpath.c" \
	-L"$prefix/lib" -lpcre2-8 -lcjson -lws2_32 -lbcrypt -ladvapi32 -static -lpthread

echo "core: built (srt.exe, libsrt-0.dll: $(grep -c '^	srt_' "$out/obj/libsrt.def") exported functions)" \
	> "$out/core.status"
cat "$out/core.status" >&2
say "done in $(( $(date +%s) - t0 )) s: $(cd "$out" && ls *.exe *.dll | tr '\n' ' ')"
