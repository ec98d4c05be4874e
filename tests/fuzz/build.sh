#!/bin/sh
# Build the libFuzzer harnesses into OUTDIR:
#   tests/fuzz/build.sh OUTDIR [HARNESS...]
# Each harness compiles the sources it tests directly (as the unit tests
# do), so it needs neither libsrt nor a configured build tree: the
# config.h it includes is a minimal one written into OUTDIR (the tested
# sources only rely on _GNU_SOURCE from it). Needs clang with libFuzzer
# (-fsanitize=fuzzer) and the pkg-config files of libcjson and yaml-0.1.
# CLANG selects the compiler (default: clang); FUZZ_CFLAGS adds flags.
set -eu

usage() {
	echo "usage: $0 OUTDIR [settings-json settings-yaml domain http socks auth tls seatbelt decider subst]" >&2
	exit 2
}

[ $# -ge 1 ] || usage
out=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cc=${CLANG:-clang}

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "build.sh: '$cc' not found: install clang (Debian package 'clang')" >&2
	exit 77
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

# libFuzzer present? (clang without compiler-rt cannot link -fsanitize=fuzzer)
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
	>"$out/probe.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined -o "$out/probe" "$out/probe.c" \
	>"$out/probe.log" 2>&1; then
	echo "build.sh: '$cc' cannot link -fsanitize=fuzzer (see $out/probe.log)" >&2
	exit 77
fi
rm -f "$out/probe" "$out/probe.c" "$out/probe.log"

cat >"$out/config.h" <<'CONFIG'
/* Minimal config.h for the fuzz harnesses (written by tests/fuzz/build.sh). */
#ifndef _GNU_SOURCE
# define _GNU_SOURCE 1
#endif
#define PACKAGE "srt"
#define PACKAGE_NAME "srt"
#define PACKAGE_VERSION "fuzz"
#define VERSION "fuzz"
CONFIG

json_cflags=$(pkg-config --cflags libcjson)
json_libs=$(pkg-config --libs libcjson)
yaml_cflags=$(pkg-config --cflags yaml-0.1)
yaml_libs=$(pkg-config --libs yaml-0.1)
pcre2_cflags=$(pkg-config --cflags libpcre2-8)
pcre2_libs=$(pkg-config --libs libpcre2-8)

# -O1 -g: fast enough to fuzz, readable stacks. UBSan findings abort
# (no recovery) so the fuzzer saves the input like any other crash.
base="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
	-fno-sanitize-recover=all -std=gnu11 -Wall -Wextra -Wno-unused-parameter
	-I$out -I$top/include -I$top -I$here ${FUZZ_CFLAGS:-}"

settings_src="libsrt/settings.c libsrt/settings-node.c libsrt/settings-check.c
	libsrt/settings-sections.c libsrt/extract-pcre2.c libsrt/settings-json.c libsrt/settings-yaml.c
	libsrt/settings-file.c libsrt/caches.c libsrt/paths.c common/protected.c
	common/domain.c common/strv.c common/platform-linux.c common/platform-unix-posix.c libsrt/error.c"

build() {
	name=$1
	shift
	extra=$1
	shift
	libs=$1
	shift
	srcs=""
	for s in "$@"; do
		srcs="$srcs $top/$s"
	done
	echo "  CC       fuzz-$name"
	# shellcheck disable=SC2086 # word splitting of flag lists is wanted
	"$cc" $base $extra -o "$out/fuzz-$name" $srcs $libs
}

all="settings-json settings-yaml domain http socks auth tls seatbelt decider subst"
[ $# -gt 0 ] && all="$*"
for h in $all; do
	case $h in
	settings-json)
		build settings-json "$json_cflags $yaml_cflags $pcre2_cflags" "$json_libs $yaml_libs $pcre2_libs -lm" \
			tests/fuzz/fuzz-settings.c $settings_src ;;
	settings-yaml)
		build settings-yaml "-DFUZZ_SETTINGS_YAML $json_cflags $yaml_cflags $pcre2_cflags" \
			"$json_libs $yaml_libs $pcre2_libs -lm" tests/fuzz/fuzz-settings.c $settings_src ;;
	domain)
		build domain "" "" tests/fuzz/fuzz-domain.c common/domain.c libsrt/error.c ;;
	http)
		build http "" "" tests/fuzz/fuzz-http.c proxies/http.c common/domain.c \
			libsrt/error.c ;;
	socks)
		build socks "" "" tests/fuzz/fuzz-socks.c proxies/socks.c proxies/auth.c ;;
	auth)
		build auth "" "" tests/fuzz/fuzz-auth.c proxies/auth.c ;;
	tls)
		build tls "" "" tests/fuzz/fuzz-tls.c proxies/sni.c ;;
	seatbelt)
		build seatbelt "" "" tests/fuzz/fuzz-seatbelt.c \
			backends/macos-seatbelt/logline.c backends/macos-seatbelt/sbpl.c ;;
	decider)
		build decider "" "" tests/fuzz/fuzz-decider.c proxies/decider.c proxies/auth.c \
			common/platform-linux.c common/platform-unix-posix.c ;;
	subst)
		build subst "" "" tests/fuzz/fuzz-subst.c plugins/filters/credentials/subst.c ;;
	*)
		echo "build.sh: unknown harness '$h'" >&2
		usage ;;
	esac
done
