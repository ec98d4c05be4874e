#!/bin/sh
# AWS SigV4 re-signing checked by an independent signer: Debian's
# python3-botocore signs requests as a client in the sandbox would (with a
# masked key), srt's re-signing code (test-sigv4 --resign) re-signs them
# with the real key, and botocore, playing AWS, recomputes the signature of
# each request as it arrives and compares (tests/helpers/sigv4-botocore.py):
# a GET with an escaped query, an S3 PUT with a payload hash, an S3 path
# with UNSIGNED-PAYLOAD and a session token, an STS POST with a form body,
# a non-S3 path with dot segments. Runs in well under a second.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
RESIGNER="$top_builddir/tests/unit/test-sigv4"
if [ ! -x "$PY" ] || ! "$PY" -c 'import botocore' 2>/dev/null; then
	plan 1
	skip "python3-botocore missing (apt-get install python3-botocore)"
	exit 0
fi
if [ ! -x "$RESIGNER" ]; then
	plan 1
	not_ok "the re-signer $RESIGNER is not built (make check builds it)"
	exit 1
fi
"$PY" "$top_srcdir/tests/helpers/sigv4-botocore.py" "$RESIGNER"
