# Shared helpers for the fault-injection scripts (sourced after
# tests/integration/lib.sh, which gives SRT, BACKEND, WORK, HOME, plan/ok/...).

FAULT_DRIVER="$top_builddir/tests/helpers/fault-proxy"

# proc_pids PATTERN: pids (one a line) whose command line contains
# PATTERN, never this shell or its pipeline
proc_pids() { pgrep -f -- "$1" 2>/dev/null | grep -vx "$$" || true; }

# wait_gone PATTERN SECONDS: true once no process matches PATTERN
wait_gone() {
	local pat=$1 n=$(( $2 * 20 ))
	while [ "$n" -gt 0 ]; do
		[ -z "$(proc_pids "$pat")" ] && return 0
		sleep 0.05
		n=$((n - 1))
	done
	return 1
}

# mount_points: the mount points of this mount namespace that concern
# this test (root or mount point under $WORK, or bwrap's staging dirs),
# sorted; other tests running at the same time mount elsewhere
mount_points() {
	awk -v w="$WORK" 'index($4, w) || index($5, w) || index($5, "bwrap") || index($4, "bwrap") { print $4, $5 }' \
		/proc/self/mountinfo | sort
}

# listing DIR: every path below DIR with its type, sorted (placeholders
# are files, character devices or directories created by srt)
listing() { ( cd "$1" && find . -printf '%y %p\n' | sort ); }
