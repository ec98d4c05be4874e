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

# mount_points: the mount points of this mount namespace, sorted
mount_points() { awk '{ print $5 }' /proc/self/mountinfo | sort; }

# listing DIR: every path below DIR with its type, sorted (placeholders
# are files, character devices or directories created by srt)
listing() { ( cd "$1" && find . -printf '%y %p\n' | sort ); }
