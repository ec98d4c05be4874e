#!/bin/sh
# `srt proxy`: the proxy alone with an external decider (N). Usage errors
# exit 2 with the reference's messages, a decider that fails its hello stops
# the start (exit 1), and requests are decided by tests/helpers/decider.py
# through real client connections; a decider that sleeps or dies fails its
# requests closed while other requests are served. Only loopback traffic.
. "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	echo "1..0 # SKIP python3 is needed for the test decider"
	exit 0
fi
# not exec: lib.sh's EXIT trap removes the work directory it made
python3 "$top_srcdir/tests/helpers/srt-proxy-e2e.py" "$SRT" "$top_srcdir/tests/helpers/decider.py"
