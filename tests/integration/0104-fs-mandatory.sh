#!/bin/bash
. "$(dirname "$0")/lib.sh"
plan 1
skip "being written"
