# Sourced first by the network escape scripts (0401-0405): reruns the
# script in a network namespace of its own (and a mount namespace too when
# NETNS_UNSHARE=-rnm), then loads the escape and network helpers. Every
# listener and client of those scripts lives in that namespace.
if [ -z "${SRT_ESC_NETNS:-}" ] && unshare "${NETNS_UNSHARE:--rn}" true 2>/dev/null; then
	SRT_ESC_NETNS=1 exec unshare "${NETNS_UNSHARE:--rn}" bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/../integration/net-lib.sh" # absolute: lib.sh cd'd into WORK
need_bwrap
P="$WORK/proj"

# skip_without_netns CLASS: the namespace's loopback and interfaces, or one
# skip line naming CLASS and the end of the script
skip_without_netns() {
	netns_setup && return 0
	skip "$1 needs a network namespace of its own (unshare -rn) and ip(8)"
	echo "1..$_tap_n"
	exit 0
}
