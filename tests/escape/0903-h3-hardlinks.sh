#!/bin/bash
. "$(dirname "$0")/lib.sh"
skip "not written yet"
echo "1..$_tap_n"
