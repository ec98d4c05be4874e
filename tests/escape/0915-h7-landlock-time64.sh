#!/bin/bash
# Escape class H7 (linux-landlock): the utimes family through the doors the
# supervisor's table does not name. utimensat_time64 exists only in the
# 32-bit tables (where libc calls it in place of utimensat, and where the
# supervisor now judges it too); a 64-bit command reaches it, and x32's
# utimensat, only by entering the kernel through the i386 door (int 0x80)
# or with the x32 bit, and the filters kill a process that does so before
# any notification. Each attempt aims at a protected .git/config; the line
# asserts on its time on the host and on how the probe ended (SIGSYS, 31),
# next to the native utimensat, which the supervisor refuses.
. "$(dirname "$0")/lib.sh"
need_bwrap
if [ "$(uname -m)" != x86_64 ]; then
	skip_rest 3 "H7 the i386 and x32 doors are x86_64's"
	echo "1..$_tap_n"
	exit 0
fi
LL=$BACKEND_LL
P="$WORK/proj"
mkdir -p "$P/.git"
printf '[core]\n\tbare = false\n' > "$P/.git/config"
touch -d '2020-01-01 00:00:00' "$P/.git/config"
t0=$(stat -c %Y "$P/.git/config")
cd "$P" || exit 1
S=$(fsjson s "$S0_FS")
if ! out=$(timeout -k 5 60 "$SRT" --backend="$LL" -s "$S" -c 'echo alive' 2>"$WORK/err") || [ "$out" != alive ]; then
	if grep -qi landlock "$WORK/err"; then
		skip_rest 3 "linux-landlock cannot run here: $(head -1 "$WORK/err")"
		echo "1..$_tap_n"
		exit 0
	fi
	diag "$(cat "$WORK/err")"
fi
timeout -k 5 60 "$SRT" --backend="$LL" -s "$S" -c "$ESYS i386-utimensat-time64 .git/config; $ESYS x32-utimensat .git/config; touch .git/config; true" \
	>"$WORK/out" 2>&1
# the same door outside the sandbox, on a scratch file: a kernel without
# the i386 or x32 entry (ia32_emulation=0, no CONFIG_X86_X32_ABI) refuses
# it itself, and the sandbox's answer then only has to be no success
touch "$WORK/scratch"
for p in i386-utimensat-time64 x32-utimensat; do
	line=$(grep "^$p " "$WORK/out" | head -1)
	host=$("$ESYS" "$p" "$WORK/scratch")
	if [ "$host" = "$p ok" ]; then
		attempt H7 "$p on .git/config killed before the supervisor (${line:-no answer})" \
			sh -c "[ '$line' = '$p sig=31' ]"
	else
		attempt H7 "$p on .git/config did not succeed (${line:-no answer}; this kernel refuses the door itself: $host)" \
			sh -c "[ -n '$line' ] && [ '$line' != '$p ok' ]"
	fi
done
attempt H7 ".git/config kept its time ($(stat -c %Y "$P/.git/config"), was $t0)" \
	test "$(stat -c %Y "$P/.git/config")" = "$t0"
echo "1..$_tap_n"
