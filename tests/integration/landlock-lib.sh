# Sourced after lib.sh by the linux-landlock scripts (0401-0403). Sets
#   LL        the linux-landlock module
#   PY        the host's python3 (for listeners)
# and defines
#   ll_run SRT-ARGS...          srt with linux-landlock (30 s at most)
#   ll_alive N RUNNER SETTINGS  runs `echo alive` through RUNNER (a function
#                               running srt with LL); where linux-landlock
#                               cannot run here, N skip lines and the end
#                               of the script; another failure becomes a
#                               diagnostic. The output is left in $out for
#                               the script's own check.
LL=$BACKEND_LL
PY=/usr/bin/python3
ll_run() { timeout -k 5 30 "$SRT" --backend="$LL" "$@"; }
ll_alive() {
	local n=$1 run=$2 s=$3 i
	if ! out=$("$run" -s "$s" -c 'echo alive' 2>"$WORK/err") || [ "$out" != alive ]; then
		if grep -qi 'landlock' "$WORK/err"; then
			for i in $(seq "$n"); do skip "linux-landlock cannot run here: $(head -1 "$WORK/err")"; done
			exit 0
		fi
		diag "$(cat "$WORK/err")"
	fi
}
