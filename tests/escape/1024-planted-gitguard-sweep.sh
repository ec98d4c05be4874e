#!/bin/bash
# Escape class G (the cleanup guard): when srt is killed mid-run (SIGKILL,
# as an agent's timeout does), its cleanup guard runs the git guard's sweep
# as the program srt-gitguard-sweep, on the host, outside any sandbox. What
# runs must be the program as srt took it at the start, and srt must take
# none the command can have put there; without one, the guard is a copy of
# srt, which sweeps all the same. Each case checks a marker a replacement
# writes on the host, and that the sweep quarantined the repository the
# command made (core.fsmonitor set). Found by this session's red team:
#   1. srt installed in a write root: the command swaps the program;
#   2. the host renames another program over it during the run;
#   3. the host rewrites it in place during the run (the command does the
#      same where it may write the file: its own, in a write root named
#      by another path, a bind mount of one);
#   4. (root) the program on a noexec mount: taken, then it could not run,
#      and nothing swept;
#   5. (root) the program in another user's directory, which that user
#      rewrites during the run: run as root;
#   6. (root) a link at the program's name to a program of root's that does
#      nothing (true): taken, and nothing swept;
#   7. (root) the program's directory is a write root under another name
#      (a bind mount): a run writes the program through it, the next run,
#      killed, runs what it wrote;
#   8. (root) the same with a subdirectory of a write root bound onto the
#      program's directory;
#   9. (root) case 8 with the write root the top of its own filesystem, and
#      the subdirectory renamed by the command to a name starting with a
#      form feed, which a parse of mountinfo by whitespace took for "/";
#  10. (root) a write root's file bound onto the program's name.
. "$(dirname "$0")/lib.sh"
need_bwrap_sandbox
if ! command -v git >/dev/null 2>&1; then
	skip_rest 18 "G the sweep's program replaced: git is missing"
	echo "1..$_tap_n"; exit 0
fi
# the program srt runs for this tree: the harness's, else the installed one
# beside the modules' directory
if [ -n "${SRT_HELPER_DIR:-}" ]; then
	SWEEP=$SRT_HELPER_DIR/srt-gitguard-sweep
else
	SWEEP=$(dirname "$MODULE_TREE")/srt-gitguard-sweep
fi
if [ ! -x "$SWEEP" ]; then
	skip_rest 18 "G the sweep's program replaced: no srt-gitguard-sweep at $SWEEP"
	echo "1..$_tap_n"; exit 0
fi

# killed_run CASE HELPERS COMMAND-PREFIX HOST [ROOT]: srt with
# SRT_HELPER_DIR=HELPERS and the write roots $WORK/CASE (and ROOT) runs, in
# $WORK/CASE, COMMAND-PREFIX, then makes a repository with a program in its
# config and waits; once it is up, HOST runs (eval'd) and srt is killed;
# then the guard's work is waited for (the run's TMPDIR gone)
killed_run() {
	local c=$1 helpers=$2 pre=$3 host=$4 P=$WORK/$1 S K t here=$PWD roots
	mkdir -p "$P"
	roots="\"$P\"${5:+,\"$5\"}"
	S=$(fsjson "g$c" "{\"denyRead\":[],\"allowWrite\":[$roots],\"denyWrite\":[]}")
	cd "$P" || return
	SRT_HELPER_DIR=$helpers srt__bg -s "$S" -c "$pre"'git init -q newrepo && git -C newrepo config core.fsmonitor "touch PWNED; false" && echo "$TMPDIR" > tmpname && touch up && exec sleep 300'
	K=$!
	cd "$here" || return
	wait_for "$P/up" 200 || diag "$c: the command did not start: $(head -c 400 "$WORK/bg.out")"
	eval "$host"
	kill -KILL "$K"
	wait "$K" 2>/dev/null
	t=$(cat "$P/tmpname" 2>/dev/null)
	for _ in $(seq 150); do [ -n "$t" ] && [ ! -e "$t" ] && break; sleep 0.1; done
	for _ in $(seq 20); do [ -e "$P/newrepo/.git.srt-quarantine" ] && break; sleep 0.1; done
}
# swept CASE WHO: the repository the command made in case CASE was
# quarantined (WHO did the sweep)
swept() {
	check "G ... the command's repository is quarantined ($2)" \
		test -e "$WORK/$1/up" -a ! -e "$WORK/$1/newrepo/.git" -a -e "$WORK/$1/newrepo/.git.srt-quarantine"
}
# helpers_copy DIR: DIR made, holding a copy of the sweep's program
helpers_copy() { mkdir -p "$1" && cp -p "$SWEEP" "$1/"; }
# replacing WHAT DIR MARKER: the commands that put a program at DIR's
# srt-gitguard-sweep which, run, makes MARKER (WHAT: rename or inplace)
replacing() {
	local script="printf '#!/bin/sh\\ntouch %s\\n' '$3'"
	case $1 in
	rename) echo "$script > '$2/new' && chmod 755 '$2/new' && mv -f '$2/new' '$2/srt-gitguard-sweep'" ;;
	inplace) echo "$script > '$2/srt-gitguard-sweep'" ;;
	esac
}

# 1. the program in the write root: the command swaps it
helpers_copy "$WORK/c1/helpers"
M1=$WORK/pwned-1
killed_run c1 "$WORK/c1/helpers" "$(replacing rename helpers "$M1") && " ""
attempt G "a program the command replaced in its write root is not run when srt is killed" test ! -e "$M1"
swept c1 "by a copy of srt"

# 2. the program outside the write roots: the host renames another over it
helpers_copy "$WORK/h2"
M2=$WORK/pwned-2
killed_run c2 "$WORK/h2" "" "$(replacing rename "$WORK/h2" "$M2")"
attempt G "a program renamed over the sweep's during the run is not what runs" test ! -e "$M2"
swept c2 "by the program srt took at the start"

# 3. the program outside the write roots: the host rewrites it in place
helpers_copy "$WORK/h3"
M3=$WORK/pwned-3
killed_run c3 "$WORK/h3" "" "$(replacing inplace "$WORK/h3" "$M3")"
attempt G "a program rewritten in place during the run is not what runs" test ! -e "$M3"
swept c3 "by the copy srt took at the start"

if ! is_root; then
	skip_rest 12 "G the sweep's program on a noexec mount, another user's, a link, bind mounts: needs root (mount, chown)"
	echo "1..$_tap_n"; exit 0
fi
# 4. the program on a noexec mount: the sweep must still happen
mkdir -p "$WORK/nx"
if mount -t tmpfs -o noexec,mode=755 tmpfs "$WORK/nx" 2>/dev/null; then
	cp -p "$SWEEP" "$WORK/nx/"
	killed_run c4 "$WORK/nx" "" ""
	umount "$WORK/nx"
	swept c4 "the sweep's program on a noexec mount: its copy ran"
else
	skip "G the sweep's program on a noexec mount: tmpfs cannot be mounted here"
fi
# 5. another user's directory: that user rewrites the program during the
# run; root's guard must not run it
helpers_copy "$WORK/h5"
chown -R 65534:65534 "$WORK/h5"
M5=$WORK/pwned-5
killed_run c5 "$WORK/h5" "" "$(replacing inplace "$WORK/h5" "$M5")"
attempt G "a program in another user's directory, rewritten by that user, is not run by root's guard" \
	test ! -e "$M5"
swept c5 "by a copy of srt"

# 6. a link at the name, in root's own directory, to a program that does
# nothing
mkdir -p "$WORK/h6"
ln -s "$(type -P true)" "$WORK/h6/srt-gitguard-sweep"
killed_run c6 "$WORK/h6" "" ""
swept c6 "a link at the sweep program's name is not followed: by a copy of srt"

# 7. the program's directory bound elsewhere and made a write root there:
# one run (not killed) writes the program through that name, the next
# one is killed
helpers_copy "$WORK/h7"
mkdir -p "$WORK/alias7" "$WORK/c7"
M7=$WORK/pwned-7
if mount --bind "$WORK/h7" "$WORK/alias7" 2>/dev/null; then
	S7=$(fsjson g7p "{\"denyRead\":[],\"allowWrite\":[\"$WORK/c7\",\"$WORK/alias7\"],\"denyWrite\":[]}")
	(cd "$WORK/c7" && SRT_HELPER_DIR=$WORK/h7 srt__run -s "$S7" -c "$(replacing inplace "$WORK/alias7" "$M7")") >/dev/null 2>&1
	planted=no
	grep -q "$M7" "$WORK/h7/srt-gitguard-sweep" 2>/dev/null && planted=yes
	killed_run c7 "$WORK/h7" "" "" "$WORK/alias7"
	umount "$WORK/alias7"
	attempt G "a program a run wrote through a write root bound over its directory is not run (planted: $planted)" \
		test ! -e "$M7" -a "$planted" = yes
	swept c7 "by a copy of srt"
else
	skip_rest 2 "G the sweep's program under a bind mount: mount --bind refused here"
fi

# 8. a write root's subdirectory bound onto the program's directory: a run
# writes the program in its write root, the next one is killed
mkdir -p "$WORK/c8/sub" "$WORK/h8"
M8=$WORK/pwned-8
if mount --bind "$WORK/c8/sub" "$WORK/h8" 2>/dev/null; then
	cp -p "$SWEEP" "$WORK/h8/"
	S8=$(fsjson g8p "{\"denyRead\":[],\"allowWrite\":[\"$WORK/c8\"],\"denyWrite\":[]}")
	(cd "$WORK/c8" && SRT_HELPER_DIR=$WORK/h8 srt__run -s "$S8" -c "$(replacing inplace sub "$M8")") >/dev/null 2>&1
	planted=no
	grep -q "$M8" "$WORK/h8/srt-gitguard-sweep" 2>/dev/null && planted=yes
	killed_run c8 "$WORK/h8" "" ""
	umount "$WORK/h8"
	attempt G "a program a run wrote in a write root's subdirectory bound onto its directory is not run (planted: $planted)" \
		test ! -e "$M8" -a "$planted" = yes
	swept c8 "by a copy of srt"
else
	skip_rest 2 "G the sweep's program under a bind mount: mount --bind refused here"
fi

# 9. case 8 on a write root that is a filesystem's top, the subdirectory
# renamed to "\fsub" by a run before the killed one
mkdir -p "$WORK/c9" "$WORK/h9"
M9=$WORK/pwned-9
if mount -t tmpfs -o mode=755 tmpfs "$WORK/c9" 2>/dev/null && mkdir "$WORK/c9/sub" &&
	cp -p "$SWEEP" "$WORK/c9/sub/" && mount --bind "$WORK/c9/sub" "$WORK/h9" 2>/dev/null; then
	S9=$(fsjson g9p "{\"denyRead\":[],\"allowWrite\":[\"$WORK/c9\"],\"denyWrite\":[]}")
	C9="mv sub \"\$(printf '\\fsub')\" && printf '#!/bin/sh\\ntouch %s\\n' '$M9' > \"\$(printf '\\fsub')/srt-gitguard-sweep\""
	(cd "$WORK/c9" && SRT_HELPER_DIR=$WORK/h9 srt__run -s "$S9" -c "$C9") >"$WORK/c9.out" 2>&1
	planted=no
	grep -q "$M9" "$WORK/h9/srt-gitguard-sweep" 2>/dev/null && planted=yes
	killed_run c9 "$WORK/h9" "" ""
	attempt G "a bound subdirectory renamed to a name mountinfo escapes no differently is still seen (planted: $planted)" \
		test ! -e "$M9" -a "$planted" = yes
	swept c9 "by a copy of srt"
	umount "$WORK/h9"
	umount "$WORK/c9"
else
	umount "$WORK/c9" 2>/dev/null
	skip_rest 2 "G the sweep's program in a bound subdirectory of a tmpfs: mount refused here"
fi

# 10. a write root's file bound onto the program's name
helpers_copy "$WORK/h10"
mkdir -p "$WORK/c10"
cp -p "$SWEEP" "$WORK/c10/prog"
M10=$WORK/pwned-10
if mount --bind "$WORK/c10/prog" "$WORK/h10/srt-gitguard-sweep" 2>/dev/null; then
	S10=$(fsjson g10p "{\"denyRead\":[],\"allowWrite\":[\"$WORK/c10\"],\"denyWrite\":[]}")
	(cd "$WORK/c10" && SRT_HELPER_DIR=$WORK/h10 srt__run -s "$S10" \
		-c "$(replacing inplace . "$M10" | sed 's|/srt-gitguard-sweep|/prog|')") >/dev/null 2>&1
	planted=no
	grep -q "$M10" "$WORK/h10/srt-gitguard-sweep" 2>/dev/null && planted=yes
	killed_run c10 "$WORK/h10" "" ""
	umount "$WORK/h10/srt-gitguard-sweep"
	attempt G "a program a run wrote in a write root's file bound onto its name is not run (planted: $planted)" \
		test ! -e "$M10" -a "$planted" = yes
	swept c10 "by a copy of srt"
else
	skip_rest 2 "G a file bound onto the sweep's program: mount --bind refused here"
fi
echo "1..$_tap_n"
