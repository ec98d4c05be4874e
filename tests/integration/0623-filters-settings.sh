#!/bin/bash
# network.filters as the settings give it: each plugin is loaded (by name
# from the filter directory, or by absolute path) and created with its
# config when the sandbox is created; a plugin that cannot be loaded or
# refuses its config stops srt with one line naming the entry and the key
# path, and the command never runs. The out-of-tree example
# (examples/filter-plugin/) builds with nothing but `pkg-config --cflags srt`
# and loads both ways.
. "$(dirname "$0")/lib.sh"

MARK="$WORK/ran"
net() { settings "{\"network\":{\"allowedDomains\":[\"example.com\"],\"deniedDomains\":[],\"filters\":$1},\"filesystem\":{\"denyRead\":[],\"allowWrite\":[\"$WORK\"],\"denyWrite\":[]}}"; }
one_line() { test "$(grep -c . "$1")" = 1; }

# a plugin nobody installed
S=$(net '[{"plugin":"no-such-filter"}]')
srt__run -s "$S" -c "touch '$MARK'" 2>"$WORK/err"; rc=$?
check "N an unknown plugin: exit 1, nothing ran (rc=$rc)" test $rc = 1 -a ! -e "$MARK"
check "N the message names network.filters[0] and the plugin" \
	grep -q 'network.filters\[0\]: request filter "no-such-filter" cannot be loaded' "$WORK/err"
check "N in one line" one_line "$WORK/err"
sed 's/^/# /' "$WORK/err"

# a shipped plugin with a bad config: the key path inside its config
S=$(net '[{"plugin":"audit","config":{"path":"'"$WORK"'/a.jsonl"}},{"plugin":"rules","config":{"rules":[{"action":"deny","methods":["get me"]}]}}]')
srt__run -s "$S" -c "touch '$MARK'" 2>"$WORK/err"; rc=$?
check "N a bad rules config: exit 1, nothing ran (rc=$rc)" test $rc = 1 -a ! -e "$MARK"
check "N the key path names the entry and the key inside its config" \
	grep -q '^srt: .*network.filters\[1\].config.rules\[0\].methods\[0\]: request filter "rules": expected a method name' "$WORK/err"
check "N in one line" one_line "$WORK/err"
sed 's/^/# /' "$WORK/err"

# a module that is not a filter, by absolute path
S=$(net '[{"plugin":"'"$BACKEND"'"}]')
srt__run -s "$S" -c "touch '$MARK'" 2>"$WORK/err"; rc=$?
check "N a backend module as a filter is refused, naming the file (rc=$rc)" \
	eval 'test $rc = 1 -a ! -e "$MARK" && grep -q "does not export srt_filter_entry" "$WORK/err"'

# a relative path is neither a name nor an absolute path
S=$(net '[{"plugin":"./rules.so"}]')
srt__run -s "$S" -c "touch '$MARK'" 2>"$WORK/err"; rc=$?
check "N a relative plugin path is refused (rc=$rc)" \
	eval 'test $rc = 1 -a ! -e "$MARK" && grep -q "neither a name" "$WORK/err"'

# the example, built out of tree against a srt.pc pointing at this tree
if ! command -v pkg-config >/dev/null || ! command -v make >/dev/null; then
	skip "N the example filter builds with pkg-config (no pkg-config or make)"
else
	mkdir -p "$WORK/pc" "$WORK/ex" "$WORK/filters"
	chmod 755 "$WORK/filters"
	cat >"$WORK/pc/srt.pc" <<PC
includedir=$top_srcdir/include
filterdir=$WORK/filters
Name: srt
Description: srt (this build tree)
Version: 0
Cflags: -I\${includedir}
PC
	cp "$top_srcdir/examples/filter-plugin/Makefile" "$top_srcdir/examples/filter-plugin/deny-methods.c" "$WORK/ex/"
	PKG_CONFIG_PATH="$WORK/pc" make -s -C "$WORK/ex" CFLAGS="-O2 -Wall -Wextra -Werror" >"$WORK/make.log" 2>&1 &&
		PKG_CONFIG_PATH="$WORK/pc" make -s -C "$WORK/ex" install >>"$WORK/make.log" 2>&1
	check "N the example builds and installs with pkg-config's cflags and filterdir" \
		test -f "$WORK/filters/deny-methods.so"
	sed 's/^/# /' "$WORK/make.log"
	S=$(net '[{"plugin":"deny-methods","config":{"methods":["DELETE","lower"]}}]')
	SRT_FILTER_DIR="$WORK/filters" srt__run -s "$S" -c "touch '$MARK'" 2>"$WORK/err"; rc=$?
	check "N loaded by name from the filter directory: its own config check runs (rc=$rc)" \
		eval 'test $rc = 1 -a ! -e "$MARK" && grep -q "network.filters\[0\].config.methods\[1\]: request filter \"deny-methods\": \"lower\" is not an upper-case method name" "$WORK/err"'
	sed 's/^/# /' "$WORK/err"
	S=$(net '[{"plugin":"'"$WORK"'/filters/deny-methods.so","config":{}}]')
	srt__run -s "$S" -c "touch '$MARK'" 2>"$WORK/err"; rc=$?
	check "N loaded by absolute path: its config check runs (rc=$rc)" \
		eval 'test $rc = 1 -a ! -e "$MARK" && grep -q "network.filters\[0\].config.methods: request filter" "$WORK/err"'
	chmod 777 "$WORK/filters"
	S=$(net '[{"plugin":"deny-methods","config":{"methods":["DELETE"]}}]')
	SRT_FILTER_DIR="$WORK/filters" srt__run -s "$S" -c "touch '$MARK'" 2>"$WORK/err"; rc=$?
	check "N a filter directory others can write is refused (rc=$rc)" \
		eval 'test $rc = 1 -a ! -e "$MARK" && grep -q "SRT_FILTER_DIR" "$WORK/err"'
	chmod 755 "$WORK/filters"
fi

echo "1..$_tap_n"
exit $_tap_failed
