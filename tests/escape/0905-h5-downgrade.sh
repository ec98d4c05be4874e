#!/bin/bash
# Escape class H5: no silent downgrade. Without --backend, a policy the
# preferred backend (linux-bwrap) refuses is an error naming the setting
# and the backend, never a run under the weaker linux-landlock: each
# spelling of a write root "/" leaves no marker on the host and names
# filesystem.allowWrite. A backend module whose capability bits do not
# cover what the policy asks for (a third-party module declaring none,
# whose wrap runs the command as it is) is refused before anything runs,
# and --explain never claims guarantees the module does not declare.
. "$(dirname "$0")/lib.sh"
need_bwrap
MARK="$WORK/ran"
NOCAPS="$top_builddir/tests/fake/.libs/fake_no_caps.so"

# H5: the automatic choice (no --backend) looks in SRT_BACKEND_DIR
if [ -z "${SRT_BACKEND_DIR:-}" ] || [ ! -e "$SRT_BACKEND_DIR/linux_bwrap.so" ] ||
   ! timeout 30 "$SRT" -s "$(fsjson plain "$S0_FS")" -c true 2>/dev/null; then
	skip_rest 3 "H5 the automatic choice: SRT_BACKEND_DIR with this build's modules is not set, or linux-bwrap cannot run here"
else
	# proj is three levels below /, home too. As root bwrap refuses a
	# write root holding bwrap itself; an unprivileged user cannot write
	# /usr, so there linux-bwrap may run the policy: either is right, a
	# switch to linux-landlock never is.
	for spelling in '/' '../../..' '~/../../..'; do
		S=$(fsjson root "{\"denyRead\":[\"~/.ssh\"],\"allowWrite\":[\"$spelling\"],\"denyWrite\":[]}")
		rm -f "$MARK"
		timeout -k 5 30 "$SRT" -d -s "$S" -c "echo COMMAND-RAN; touch '$MARK'" >"$WORK/out" 2>&1; rc=$?
		refused() { test "$rc" != 0 -a ! -e "$MARK" && ! grep -q COMMAND-RAN "$WORK/out" &&
			    grep -q 'filesystem.allowWrite\[0\] .*backend linux-bwrap refuses' "$WORK/out"; }
		bwrap_ran() { grep -q 'backend linux-bwrap from' "$WORK/out" && grep -q COMMAND-RAN "$WORK/out"; }
		# linux-bwrap failing on the machine itself (its probe: a user
		# namespace it could not make under the load of a parallel pass)
		# is the documented switch with a warning, not one a setting made
		machine() { grep -q 'backend linux-landlock chosen: linux-bwrap could not run on this machine' "$WORK/out"; }
		no_downgrade() { { ! grep -q 'linux-landlock' "$WORK/out" || machine; } &&
				 { refused || bwrap_ran || machine; }; }
		if machine || ! no_downgrade; then
			diag "$(grep -v 'bwrap argv' "$WORK/out" | head -c 1500)"
		fi
		attempt H5 "allowWrite [\"$spelling\"] without --backend: no switch to linux-landlock, refused naming the setting and linux-bwrap or run by linux-bwrap (rc=$rc)" no_downgrade
	done
fi

# H5: a module that declares no capability
if [ ! -e "$NOCAPS" ]; then
	skip_rest 3 "H5 tests/fake/fake_no_caps.so was not built"
else
	S=$(fsjson plain "$S0_FS")
	rm -f "$MARK"
	timeout -k 5 30 "$SRT" --backend="$NOCAPS" -s "$S" -c "touch '$MARK'; cat ~/.ssh/id_canary > '$WORK/leak'" \
		>"$WORK/out" 2>&1; rc=$?
	attempt H5 "caps = 0 module: refused before the command runs (rc=$rc)" \
		test "$rc" != 0 -a ! -e "$MARK" -a ! -e "$WORK/leak"
	attempt H5 "caps = 0 module: the refusal names the module and the missing capability" \
		grep -q 'backend "fake" does not declare filesystem rules' "$WORK/out"
	timeout -k 5 30 "$SRT" --backend="$NOCAPS" -s "$S" --explain -c true >"$WORK/explain" 2>&1
	attempt H5 "caps = 0 module: --explain never claims filesystem rules" \
		sh -c "! grep -q '^guarantees: filesystem rules' '$WORK/explain'"
fi
echo "1..$_tap_n"
