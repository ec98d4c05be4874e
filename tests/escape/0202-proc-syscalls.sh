#!/bin/bash
# Escape class: raw system calls with odd arguments (K6): socket type bits and 64-bit high bits, the i386 entry
# point (int 0x80, socketcall) and x32 from a 64-bit process, clone /
# clone3 / vfork+unshare / unshare with combined flags, setns through a
# pidfd, personality, keyrings, bpf, perf, userfaultfd, the new mount API,
# open_by_handle_at, umount of the masks. Every probe runs in its own child
# of tests/helpers/escape-sys: "ok" means the kernel did it, which is an
# escape here; a refusal (errno) or a seccomp kill (sig=31) passes. Host
# state: the canary, the key, the masks. The read observer resolves every
# path of the command in one root it opens once (command_root in
# backends/linux-bwrap/init/monitor.c): the chroot, pivot_root and user
# namespace refusals here are what keep that root every process's
# (allowNestedUserNamespaces lifts them, and the monitor then opens each
# call's root at that call: 1027).
. "$(dirname "$0")/lib.sh"
need_bwrap
P="$WORK/proj"
S=$(fsjson s0 "$S0_FS")
E=$ESYS

probes="socket-unix-cloexec socket-unix-dgram socket-unix-seqpacket socket-unix-hi socket-unix-type-hi
	socket-unix-proto socket-vsock-cloexec socket-packet personality-socket
	unshare-user-net unshare-all unshare-user-hi unshare-ns-files unshare-net
	clone-user-hi clone-user-vfork clone-ns-net clone3-user vfork-unshare setns-pidfd setns-proc1-mnt
	bpf-prog perf-cpu userfaultfd io_uring-sqpoll io_uring_register ptrace-seize-1 vm-read-1
	proc1-environ fsopen fsopen-proc open_tree-clone move_mount mount_setattr chroot pivot_root"
x86="i386-socket i386-socketcall i386-unshare i386-mount x32-socket x32-unshare"
[ "$(uname -m)" = x86_64 ] && probes="$probes $x86"
# judge FILE CLASS: one TAP line per probe line
judge() {
	local f=$1 cls=$2 p line
	for p in $probes; do
		line=$(grep "^$p " "$f" | head -1)
		if [ -z "$line" ]; then
			not_ok "$cls $p: no answer (the probe did not run)"
		else
			attempt "$cls" "$p refused ($line)" sh -c "! printf '%s' '$line' | grep -q ' ok\$'"
		fi
	done
}

cmd="for p in $(echo $probes); do $E \$p; done"
srt__run -s "$S" -c "$cmd" >"$WORK/probes" 2>&1
judge "$WORK/probes" K6

# the same with bwrap binding the host /proc (enableWeakerNestedSandbox)
W=$(fsjson weak "$S0_FS")
sed -i 's/^{/{"enableWeakerNestedSandbox":true,/' "$W"
srt__run -s "$W" -c "for p in unshare-user-net clone-user-hi setns-pidfd setns-proc1-mnt fsopen-proc open_tree-clone mount_setattr; do $E \$p; done" >"$WORK/weak" 2>&1
for p in unshare-user-net clone-user-hi setns-pidfd setns-proc1-mnt fsopen-proc open_tree-clone mount_setattr; do
	line=$(grep "^$p " "$WORK/weak" | head -1)
	attempt K6 "weaker nested sandbox: $p refused (${line:-no answer})" \
		sh -c "[ -n '$line' ] && ! printf '%s' '$line' | grep -q ' ok\$'"
done

# the masks cannot be peeled off: umount, remount, bind over
srt__run -s "$S" -c "$E umount $HOME/.ssh; $E umount $HOME/.aws; $E remount-rw /; $E bind-mount / /tmp; cat ~/.ssh/id_canary ~/.aws/credentials" >"$WORK/out" 2>&1
for p in umount remount-rw bind-mount; do
	attempt K6 "$p refused" sh -c "grep -q '^$p ' '$WORK/out' && ! grep -q '^$p ok' '$WORK/out'"
done
attempt K6 "after the mount attempts the secrets are still hidden" no_leak "$WORK/out"

# open_by_handle_at: a handle taken on the host names the secret by inode,
# no path involved
if "$E" handle-save "$HOME/.ssh/id_canary" "$P/handle" 2>/dev/null; then
	srt__run -s "$S" -c "$E handle-read $P/handle" >"$WORK/out" 2>&1
	attempt K6 "open_by_handle_at of the secret's handle refused ($(grep '^handle-read' "$WORK/out"))" \
		sh -c "! grep -q '^handle-read ok' '$WORK/out'"
	attempt K6 "open_by_handle_at: no canary in the output" no_leak "$WORK/out"
else
	skip "K6 name_to_handle_at unsupported on this filesystem"
	skip "K6 name_to_handle_at unsupported on this filesystem"
fi

# keyrings: the caller's session keyring holds a secret; the command must
# not read it (keys are not namespaced by mounts)
key="srt-escape-$$"
if "$E" key-exec "$key-probe" x true 2>/dev/null; then
	"$E" key-exec "$key" "KEY-$CANARY" timeout -k 5 30 "$SRT" --backend="$BACKEND" -s "$S" \
		-c "$E keyctl-read $key" >"$WORK/out" 2>&1
	attempt K6 "the caller's session keyring is not readable ($(grep '^keyctl-read' "$WORK/out"))" \
		no_leak "$WORK/out"
else
	skip "K6 no kernel keyrings here"
fi
attempt K6 "the canary is unchanged" canary_intact

echo "1..$_tap_n"
