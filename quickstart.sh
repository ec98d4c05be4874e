#!/bin/bash
# Install what srt needs to build and run (Debian/Ubuntu), build it,
# install it under /usr/local, and run one real sandboxed command that shows
# a read of a secret being refused. Run as root (or with sudo).
# The tools only the tests need (valgrind, clang, lintian, ...) are not
# installed here: ./tests/run installs them.
#   ./quickstart.sh --demo [SRT-OPTION...]   only the sandboxed read, with the
#                                            srt on PATH (no root needed)
#   ./quickstart.sh --packages               the list of packages it installs
set -eu
cd "$(dirname "$0")"
# to build: the toolchain, autotools and the libraries srt links; to run:
# bubblewrap (the linux-bwrap backend starts it)
PKGS="build-essential autoconf automake libtool pkg-config
      libcjson-dev libyaml-dev libseccomp-dev libmbedtls-dev libc-ares-dev libltdl-dev libpcre2-dev
      bubblewrap"

# the demo: a sandboxed `cat` of ~/.ssh/id_rsa (a fake HOME) is refused
demo() {
	local dir out rc
	echo "== demo: a sandboxed 'cat' of a private key is refused"
	dir=$(mktemp -d)
	mkdir -p "$dir/home/.ssh" "$dir/work"
	echo "PRIVATE KEY (demo)" > "$dir/home/.ssh/id_rsa"
	cat > "$dir/settings.json" <<'JSON'
{
  "network": { "allowedDomains": [], "deniedDomains": [] },
  "filesystem": { "denyRead": ["~/.ssh"], "allowWrite": ["."], "denyWrite": [] }
}
JSON
	set +e
	out=$(cd "$dir/work" && HOME="$dir/home" srt "$@" --settings "$dir/settings.json" \
		-c 'echo "inside the sandbox as $(id -un)"; cat ~/.ssh/id_rsa || { echo "cat was refused"; exit 3; }' 2>&1)
	rc=$?
	set -e
	rm -rf "$dir"
	printf '%s\n' "$out"
	if [ $rc -ne 3 ] || ! grep -q 'inside the sandbox' <<<"$out" || grep -q 'PRIVATE KEY' <<<"$out"; then
		echo "quickstart: expected the sandboxed read to be refused (exit 3), got exit $rc" >&2
		return 1
	fi
	echo "== srt refused the read (exit $rc): the sandbox works."
}

if [ "${1:-}" = --packages ]; then
	echo $PKGS
	exit
fi
if [ "${1:-}" = --demo ]; then
	shift
	demo "$@"
	exit
fi
if [ "$(id -u)" != 0 ]; then
	echo "quickstart.sh: run as root (sudo ./quickstart.sh): it installs packages" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $PKGS >/dev/null
[ -x configure ] || autoreconf -fi
mkdir -p _build && cd _build
[ -f Makefile ] || ../configure --enable-werror >/dev/null
make -j"$(nproc)" >/dev/null
make install >/dev/null
ldconfig
hash -r
cd ..

echo
demo
echo "Run the tests with: ./tests/run (it installs the tools the tests need first)"
