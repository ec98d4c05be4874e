#!/bin/bash
# The Python binding (bindings/python): `pip install` of the package into a
# directory of the test's own (no compiler, no network: the system's
# setuptools), then its pytest suite against this build's libsrt and
# backends, as whichever user runs the script (the harness runs it as root
# and as srt-test). One TAP line for the install, one per pytest case.
set -u
. "$(dirname "$0")/lib.sh"
# The Debian packages do not ship the language bindings: against an
# installed srt they are not what is tested (the build-tree passes run them).
if [ -n "${SRT_TEST_SRT:-}" ]; then
	plan 1; skip "the language bindings are not in the Debian packages; the build-tree passes test them"; exit 0
fi
PY=/usr/bin/python3
src="$top_srcdir/bindings/python"
lib="$top_builddir/.libs/libsrt.so.0"
# A sanitizer build of libsrt cannot be loaded into python (the sanitizer's
# runtime must be the first library of the process; preloading it into
# python hung here): the binding runs in the plain passes as root and as
# the unprivileged user, and the sanitizer pass covers libsrt through C.
if ldd "$lib" 2>/dev/null | grep -q 'libasan'; then
	plan 1; skip "a sanitizer build of libsrt cannot be loaded into python; the plain passes run this"; exit 0
fi
if ! "$PY" -c 'import pytest' 2>/dev/null; then
	plan 1; skip "python3-pytest is not installed (tests/run installs it)"; exit 0
fi
if ! "$PY" -m pip --version >/dev/null 2>&1 || ! "$PY" -c 'import setuptools' 2>/dev/null; then
	plan 1; skip "pip or setuptools missing for $PY (python3-pip, python3-setuptools)"; exit 0
fi
need_bwrap_sandbox

cp -r "$src" "$WORK/pkg"
if "$PY" -m pip install -q --no-build-isolation --no-deps --no-index \
	--target "$WORK/site" "$WORK/pkg" > "$WORK/pip.log" 2>&1 &&
	[ -f "$WORK/site/srt/__init__.py" ]; then
	install_ok=1
else
	install_ok=0
fi

cd "$WORK"
SRT_LIBRARY=$lib SRT_HEADER="$top_srcdir/include/srt/srt.h" PYTHONPATH="$WORK/site" PYTHONDONTWRITEBYTECODE=1 \
	timeout -k 10 1500 "$PY" -m pytest -v -p no:cacheprovider "$WORK/pkg/tests" \
	> "$WORK/pytest.log" 2>&1
cases=$(grep -cE '::test_[a-z0-9_]+ (PASSED|FAILED|SKIPPED|ERROR)' "$WORK/pytest.log")
plan $((cases + 1 + (cases == 0)))
if [ "$install_ok" = 1 ]; then
	ok "pip install ./bindings/python installs the package"
else
	not_ok "pip install ./bindings/python installs the package"; sed 's/^/# /' "$WORK/pip.log" | tail -20
fi
grep -oE '::test_[a-z0-9_]+ (PASSED|FAILED|SKIPPED|ERROR)' "$WORK/pytest.log" |
while read -r name result; do
	case "$result" in
	PASSED) ok "python ${name#::}" ;;
	SKIPPED) skip "python ${name#::}" ;;
	*) not_ok "python ${name#::}" ;;
	esac
done
if grep -qE 'FAILED|ERROR' "$WORK/pytest.log"; then
	grep -vE 'PASSED|^platform|^cachedir|^rootdir' "$WORK/pytest.log" | tail -60 | sed 's/^/# /'
fi
[ "$cases" -gt 0 ] || { not_ok "pytest ran no case"; tail -30 "$WORK/pytest.log" | sed 's/^/# /'; }
