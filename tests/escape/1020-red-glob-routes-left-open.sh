#!/bin/bash
# Escape class H6 (linux-bwrap), red team on a7ad40c: routes past a
# denyRead glob during the run that are known and left open (TODO lines;
# SECURITY.md, "denyRead globs", says why). Each prints the host's secret;
# when one is closed its TODO line fails as an unexpected pass and is
# taken away.
# 1. A directory above the glob's base replaced (mv a/b/c/d a/b/c/d.old;
#    mkdir -p a/b/c/d/g/secY, for a/b/c/d/g/sec*/k): only the base itself
#    is followed when it is replaced (a denied file that exists holds its
#    ancestors in place: a rename of one fails with EBUSY).
# 2. A link in the glob's fixed part (lnk -> real, glob lnk/g/sec*/k): the
#    watcher opens the base without following links, fails, and watches
#    nothing of that glob during the run (files matching at the start are
#    denied).
# 3. A node_modules or .git directory under a glob's base: left out of the
#    watch (the watcher would otherwise watch whole dependency trees).
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1

rm -rf "$P/a"; mkdir -p "$P/a/b/c/d/g"
S=$(fsjson s '{"denyRead":["./a/b/c/d/g/sec*/k"],"allowWrite":["."],"denyWrite":[]}')
host_case ancestor "$S" 'mv a/b/c/d a/b/c/d.old; mkdir -p a/b/c/d/g/secY; touch started; while [ ! -e go ]; do sleep 0.05; done; cat a/b/c/d/g/secY/k; true' \
	'echo "ANCESTOR-$CANARY" > a/b/c/d/g/secY/k'
open_route "of a glob's fixed part only the base is followed when replaced (SECURITY.md)" H6 \
	"the directory above a glob's base replaced by the command: the host's secret in the new tree is unreadable" \
	sh -c "! grep -q 'ANCESTOR-' '$WORK/bg.out'"

rm -rf "$P/real" "$P/lnk"; mkdir -p "$P/real/g"; ln -s real "$P/lnk"
S=$(fsjson s2 "{\"denyRead\":[\"$P/lnk/g/sec*/k\"],\"allowWrite\":[\".\"],\"denyWrite\":[]}")
host_case link "$S" 'touch started; while [ ! -e go ]; do sleep 0.05; done; cat lnk/g/secZ/k; true' \
	'mkdir lnk/g/secZ; echo "LINKED-$CANARY" > lnk/g/secZ/k'
open_route "a glob whose fixed part goes through a link is not watched during the run (SECURITY.md)" H6 \
	"a glob written through a link: the host's secret made during the run is unreadable" \
	sh -c "! grep -q 'LINKED-' '$WORK/bg.out'"

rm -rf "$P/g"; mkdir -p "$P/g"
S=$(fsjson s3 '{"denyRead":["./g/*/k"],"allowWrite":["."],"denyWrite":[]}')
host_case node_modules "$S" 'touch started; while [ ! -e go ]; do sleep 0.05; done; cat g/node_modules/k; true' \
	'mkdir g/node_modules; echo "NODEMOD-$CANARY" > g/node_modules/k'
open_route "node_modules and .git are not watched below a glob's base (SECURITY.md)" H6 \
	"a node_modules directory the host makes under a glob's base: the secret in it is unreadable" \
	sh -c "! grep -q 'NODEMOD-' '$WORK/bg.out'"
echo "1..$_tap_n"
