#!/bin/sh
# Build srt's Windows pieces on Debian with mingw-w64, from Debian packages
# only. Output: win/out/. Dependencies Debian ships no mingw build of
# (cJSON, libyaml, c-ares, libltdl) are built from their Debian source
# packages (apt-get source, through a deb-src entry for the archive the
# system already uses) and cached under win/deps/, so a second run only
# rebuilds srt's own files.
#
# What is built today: the helper srt-win.exe and the backend module
# windows_wfp.dll (the plan of backends/windows-wfp and the Win32 calls that
# apply it, and the process slots of backend ABI 1.5 that run the command in
# a kill-on-close job object), spawn-test.exe (drives those slots under
# Wine), loop-test.exe (the core's Windows platform file and the proxy's
# WSAPoll loop and wakeup, under Wine), and the libraries above. The core
# as a whole (libsrt, srt.exe, the proxy) does not compile for Windows
# yet: the script compiles each core source with mingw-w64 and reports how
# many compile and where the others stop (win/out/core-files.log), as a
# skip in win/test.sh.
#
# Environment: SRT_WIN_NO_APT=1 never calls apt-get (the packages must be
# installed); SRT_WIN_DEPS=DIR keeps the library cache in DIR (default
# win/deps; a CI that copies the tree points it at a lasting place); JOBS
# (default 2).
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
for p in gcc-mingw-w64-x86-64 wine64 dpkg-dev ${SRT_WIN_CORE_DEPS:+cmake}; do
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
		(cd "$deps/src" && apt-get source -qq "$1" >/dev/null 2>&1) ||
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
	[ -f "$deps/cjson.stamp" ] && return 0
	dir=$(fetch cjson)
	say "building cJSON from $dir"
	mkdir -p "$prefix/lib" "$prefix/include/cjson" "$prefix/lib/pkgconfig"
	$cc -O2 -c "$dir/cJSON.c" -o "$deps/cJSON.o"
	$host-ar rcs "$prefix/lib/libcjson.a" "$deps/cJSON.o"
	cp "$dir/cJSON.h" "$prefix/include/cjson/"
	printf 'prefix=%s\nName: libcjson\nDescription: cJSON\nVersion: 1.7\nCflags: -I${prefix}/include\nLibs: -L${prefix}/lib -lcjson\n' \
		"$prefix" > "$prefix/lib/pkgconfig/libcjson.pc"
	touch "$deps/cjson.stamp"
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

# c-ares through its CMake build: its autotools configure probes for many
# minutes under a cross compiler. 1.18.1's inet_net_pton.c uses INADDRSZ,
# which only arpa/nameser.h defines (Windows has none): 4, an IPv4
# address's size.
cmake_cares() {
	[ -f "$deps/cares.stamp" ] && return 0
	dir=$(fetch c-ares)
	say "building c-ares from $dir"
	rm -rf "$deps/build-cares" && mkdir -p "$deps/build-cares"
	(cd "$deps/build-cares" && cmake -DCMAKE_SYSTEM_NAME=Windows -DCMAKE_C_COMPILER=$cc \
		-DCMAKE_RC_COMPILER=$host-windres -DCMAKE_C_FLAGS=-DINADDRSZ=4 \
		-DCARES_STATIC=ON -DCARES_SHARED=OFF -DCARES_BUILD_TOOLS=OFF \
		-DCARES_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release \
		-DCMAKE_INSTALL_PREFIX="$prefix" "$dir" >cmake.log 2>&1 &&
		make -j"$jobs" >make.log 2>&1 && make install >install.log 2>&1) ||
		{ say "c-ares failed: see $deps/build-cares/*.log"; exit 1; }
	touch "$deps/cares.stamp"
}

mkdir -p "$deps" "$out"
t0=$(date +%s)
cjson_dep
yaml_dep
# c-ares and libltdl serve only the core, which does not compile for
# Windows yet (it still needs POSIX sockets, poll.h, regex.h, pwd.h and the
# *at() calls), and libltdl's configure alone took minutes here: they are
# built on request (SRT_WIN_CORE_DEPS=1; both build with mingw-w64 from
# their Debian sources) until the core can use them.
if [ "${SRT_WIN_CORE_DEPS:-}" = 1 ]; then
	cmake_cares
	autotools_dep ltdl libtool "libltdl" --enable-ltdl-install
else
	say "c-ares, libltdl: not built (SRT_WIN_CORE_DEPS=1 builds them; only the core needs them)"
fi
say "libraries ready in $prefix ($(( $(date +%s) - t0 )) s)"

# ---- srt's own Windows pieces ---------------------------------------------
# A config.h of our own: the Linux one belongs to another host.
mkdir -p "$out/gen"
printf '/* win/build.sh: the mingw-w64 build of the Windows pieces */\n#define PACKAGE_VERSION "%s"\n' \
	"$(sed -n 's/^AC_INIT(\[srt\], \[\([^]]*\)\].*/\1/p' "$top/configure.ac")" > "$out/gen/config.h"
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
	"$top/proxies/wakeup-windows.c" "$top/proxies/evloop-poll.c" "$top/proxies/evloop.c" \
	-static -lws2_32 -lbcrypt -lpthread

# ---- the core: as far as it goes ----------------------------------------
# srt.exe and libsrt do not build for Windows yet: the core's platform
# files are Linux's and POSIX's, and the files outside them still include
# POSIX headers. Each core source is compiled (syntax only) with mingw-w64
# and the count that compiles, with the first reason of each that does
# not, goes to win/out/core.status and core-files.log, so the distance is
# measured, not guessed. Kept while the sources stay the same.
core_src=$(cd "$top" && ls libsrt/*.c proxies/*.c common/*.c cli/*.c |
	grep -v -e '-linux\.c' -e '-posix\.c' -e 'evloop-epoll' -e 'evloop-kqueue')
core_key=$( (cd "$top" && cat $core_src libsrt/*.h proxies/*.h common/*.h cli/*.h win/include/*/* \
	win/include/*.h; ls "$deps"/*.stamp) | cksum)
if [ -f "$out/core.status" ] && [ "$(cat "$out/core.key" 2>/dev/null)" = "$core_key" ]; then
	say "core: sources unchanged since the last run"
	cat "$out/core.status" >&2
	say "done in $(( $(date +%s) - t0 )) s: $(cd "$out" && ls *.exe *.dll | tr '\n' ' ')"
	exit 0
fi
{
	printf '#define SRT_PLATFORM "windows"\n#define SRT_EVLOOP_NATIVE "poll"\n#define SRT_NO_SPLICE 1\n'
	printf '#define SRT_AUTO_BACKENDS "windows-wfp",\n#define SRT_BACKENDDIR "."\n#define SRT_FILTERDIR "."\n#define SRT_TLSDIR "."\n'
} >> "$out/gen/config.h"
n_ok=0 n_all=0
: > "$out/core-files.log"
for f in $core_src; do
	n_all=$((n_all + 1))
	if err=$($cc -std=gnu11 -D_GNU_SOURCE -DYAML_DECLARE_STATIC -D_WIN32_WINNT=0x0A00 -fsyntax-only \
		-I"$here/include" -I"$out/gen" -I"$top/include" -I"$top" -I"$prefix/include" \
		"$top/$f" 2>&1); then
		n_ok=$((n_ok + 1))
	else
		printf '%s: %s\n' "$f" "$(printf '%s\n' "$err" | grep -m1 'error' | sed 's/.*error: //')" \
			>> "$out/core-files.log"
	fi
done
printf 'core: not built: %d of %d core sources compile for Windows (the others: win/out/core-files.log; first: %s)\n' \
	"$n_ok" "$n_all" "$(head -n1 "$out/core-files.log")" > "$out/core.status"
echo "$core_key" > "$out/core.key"
cat "$out/core.status" >&2
say "done in $(( $(date +%s) - t0 )) s: $(cd "$out" && ls *.exe *.dll | tr '\n' ' ')"
