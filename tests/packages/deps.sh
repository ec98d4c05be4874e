#!/bin/bash
# ./quickstart.sh installs what srt needs to build and run, and the tools
# only the tests use are left to ./tests/run:
#   - every build dependency of the Debian package (debian/control) is in
#     quickstart's list, but those only the package build needs (debhelper,
#     bash-completion: tests/run installs them) and linux-libc-dev (pulled
#     in by build-essential);
#   - quickstart installs no -dev library the build does not declare;
#   - it installs what the backend packages depend on (bubblewrap);
#   - it installs none of the packages tests/run installs for the tests.
# Prints TAP.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
echo "1..4"
qs=" $(bash "$top_srcdir/quickstart.sh" --packages) "
tp=" $(bash "$top_srcdir/tests/run" --test-packages) "
# field FIELD [PACKAGE]: the names a debian/control field lists (one
# alternative group a line, version constraints dropped)
field() {
	awk -v f="$1" -v p="${2:-}" '
		/^Package:/ { pkg = $2 }
		/^[A-Za-z-]+:/ { on = ($1 == f ":" && (p == "" || pkg == p)); sub(/^[^:]*:/, "") }
		/^#/ { next }
		on { print }' "$top_srcdir/debian/control" |
		tr ',' '\n' | sed 's/([^)]*)//g; s/\[[^]]*\]//g; s/^[[:space:]]*//; s/[[:space:]]*$//' |
		grep -v '^$' | grep -v '^\$'
}
in_list() { case "$1" in *" $2 "*) return 0 ;; esac; return 1; }
# one_of LIST ALTERNATIVES: one of "a | b" is in LIST
one_of() {
	local a
	for a in $(tr '|' ' ' <<<"$2"); do in_list "$1" "$a" && return 0; done
	return 1
}

missing=""
while IFS= read -r dep; do
	case "$dep" in debhelper-compat*|bash-completion|linux-libc-dev) continue ;; esac
	one_of "$qs" "$dep" || missing="$missing [$dep]"
done < <(field Build-Depends)
if [ -z "$missing" ]; then echo "ok 1 - quickstart.sh installs every build dependency"
else echo "not ok 1 - quickstart.sh lacks build dependencies:$missing"; fi

extra=""
bd=" $(field Build-Depends | tr '|' ' ' | tr '\n' ' ') "
for p in $qs; do
	case "$p" in *-dev) in_list "$bd" "$p" || extra="$extra $p" ;; esac
done
if [ -z "$extra" ]; then echo "ok 2 - quickstart.sh installs no -dev library the build does not declare"
else echo "not ok 2 - quickstart.sh installs -dev libraries the build does not declare:$extra"; fi

missing=""
for p in srt-backend-linux-bwrap srt-backend-linux-landlock; do
	while IFS= read -r dep; do
		case "$dep" in libsrt0|'${'*) continue ;; esac
		one_of "$qs" "$dep" || missing="$missing [$p: $dep]"
	done < <(field Depends "$p")
done
if [ -z "$missing" ]; then echo "ok 3 - quickstart.sh installs what the backends need to run"
else echo "not ok 3 - quickstart.sh lacks what the backends need to run:$missing"; fi

both=""
for p in $tp; do in_list "$qs" "$p" && both="$both $p"; done
if [ -z "$both" ] && [ "$tp" != "  " ]; then echo "ok 4 - quickstart.sh installs none of the tools only the tests use"
else echo "not ok 4 - quickstart.sh installs tools only the tests use:${both:- (no list from tests/run)}"; fi
