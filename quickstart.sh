#!/bin/bash
# Install what srt needs (Debian/Ubuntu), build it, install it under
# /usr/local, and run one real sandboxed command that shows a read of a
# secret being refused. Run as root (or with sudo).
set -eu
cd "$(dirname "$0")"
PKGS="build-essential autoconf automake libtool libtool-bin pkg-config
      libcjson-dev libyaml-dev libseccomp-dev libmbedtls-dev libc-ares-dev libltdl-dev
      bubblewrap curl python3 iproute2 procps psmisc openssh-client netcat-openbsd
      socat git openssl gdb strace valgrind clang llvm libclang-rt-dev hyperfine"
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
cd ..

echo
echo "== demo: a sandboxed 'cat' of a private key is refused"
demo=$(mktemp -d)
mkdir -p "$demo/home/.ssh" "$demo/work"
echo "PRIVATE KEY (demo)" > "$demo/home/.ssh/id_rsa"
cat > "$demo/settings.json" <<'JSON'
{
  "network": { "allowedDomains": [], "deniedDomains": [] },
  "filesystem": { "denyRead": ["~/.ssh"], "allowWrite": ["."], "denyWrite": [] }
}
JSON
set +e
out=$(cd "$demo/work" && HOME="$demo/home" srt --settings "$demo/settings.json" \
	-c 'echo "inside the sandbox as $(id -un)"; cat ~/.ssh/id_rsa || { echo "cat was refused"; exit 3; }' 2>&1)
rc=$?
set -e
rm -rf "$demo"
printf '%s\n' "$out"
if [ $rc -ne 3 ] || ! grep -q 'inside the sandbox' <<<"$out"; then
	echo "quickstart: expected the sandboxed read to be refused (exit 3), got exit $rc" >&2
	exit 1
fi
echo "== srt refused the read (exit $rc): the sandbox works. Run the tests with: ./tests/run"
