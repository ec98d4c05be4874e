#!/usr/bin/env python3
"""Checks srt's SigV4 re-signing against an independent signer: botocore.

usage: sigv4-botocore.py RESIGNER

For each request: botocore signs it as a client inside the sandbox would,
with the masked key; RESIGNER (test-sigv4 --resign) re-signs the head with
the real key; then botocore, playing AWS, recomputes the signature of the
request as it would arrive (its SignedHeaders, its X-Amz-Date, the real
secret) and it must equal the one srt wrote. As a control, the same
verifier must accept the client's original signature under the masked
secret (so it reproduces the client's canonical form) and must reject
srt's under the masked secret (so it can fail). Prints TAP."""

import hashlib
import subprocess
import sys
import types
from urllib.parse import urlsplit

try:
    from botocore.auth import S3SigV4Auth, SigV4Auth
    from botocore.awsrequest import AWSRequest, HTTPHeaders
    from botocore.credentials import Credentials
except ImportError as e:  # the shell script checks first; say why anyway
    print("1..0 # SKIP python3-botocore missing (%s)" % e)
    sys.exit(0)

RESIGNER = sys.argv[1]
FAKE = Credentials("FAKEKEYIDFAKEKEYIDXX", "fake_value_6f7c0a7e5d3b4c1a9e2f8d7c6b5a4f3e2d1c0b9a")
REAL = Credentials("AKIAREALKEYREALKEY12", "Re4lSecretKeyRe4lSecretKeyRe4lSecretKey1")
FAKE_T = Credentials(FAKE.access_key, FAKE.secret_key, "fake_value_" + "t" * 80)
REAL_T = Credentials(REAL.access_key, REAL.secret_key, "IQoJb3JpZ2luX2VjE" + "R" * 80)

n = 0
failed = 0


def ok(cond, what):
    global n, failed
    n += 1
    if not cond:
        failed = 1
    print("%s %d - %s" % ("ok" if cond else "not ok", n, what))
    sys.stdout.flush()


def client_sign(cls, creds, service, method, url, headers, body, unsigned_s3=False):
    req = AWSRequest(method=method, url=url, headers=dict(headers), data=body)
    req.headers["Host"] = urlsplit(url).netloc
    if unsigned_s3:
        req.context["client_config"] = types.SimpleNamespace(
            s3={"payload_signing_enabled": False})
    cls(creds, service, "eu-west-3").add_auth(req)
    return req


def resign(req, fake, real, body_hash=None):
    parts = urlsplit(req.url)
    target = parts.path + ("?" + parts.query if parts.query else "")
    lines = ["fake %s %s %s" % (fake.access_key, fake.secret_key, fake.token or ""),
             "real %s %s %s" % (real.access_key, real.secret_key, real.token or ""),
             "method " + req.method, "target " + target]
    if body_hash:
        lines.append("body " + body_hash)
    # the head as it goes on the wire (prepare() adds Content-Length)
    for name, value in req.prepare().headers.items():
        lines.append("header %s: %s" % (name, value))
    out = subprocess.run([RESIGNER, "--resign"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=True).stdout
    outcome, why, headers = None, "", []
    for line in out.splitlines():
        if line.startswith("outcome "):
            outcome = line[8:]
        elif line.startswith("why "):
            why = line[4:]
        elif line.startswith("header "):
            name, _, value = line[7:].partition(": ")
            headers.append((name, value))
    return outcome, why, headers


def parse_auth(value):
    algo, _, rest = value.partition(" ")
    fields = dict(p.strip().split("=", 1) for p in rest.split(","))
    key_id, _, scope = fields["Credential"].partition("/")
    return algo, key_id, scope, fields["SignedHeaders"], fields["Signature"]


def verify(cls, creds, service, method, url, headers, body):
    """AWS's side: the signature the request must carry under `creds`."""
    auth_value = [v for k, v in headers if k.lower() == "authorization"][0]
    _, _, scope, signed, _ = parse_auth(auth_value)
    names = signed.split(";")
    date, region, svc, _ = scope.split("/")

    class Restricted(cls):
        # sign exactly what the request says it signed
        def headers_to_sign(self, request):
            full = super().headers_to_sign(request)
            out = HTTPHeaders()
            for k in names:
                for v in full.get_all(k) or []:
                    out[k] = v
            return out

    req = AWSRequest(method=method, url=url, data=body)
    for k, v in headers:
        if k.lower() != "authorization":
            req.headers[k] = v
    req.context["timestamp"] = req.headers["X-Amz-Date"]
    signer = Restricted(creds, svc, region)
    cr = signer.canonical_request(req)
    sts = signer.string_to_sign(req, cr)
    return signer.signature(sts, req), signer.signed_headers(signer.headers_to_sign(req))


def check_case(name, cls, service, method, url, headers, body, fake, real,
               unsigned_s3=False, body_hash=None):
    req = client_sign(cls, fake, service, method, url, headers, body, unsigned_s3)
    client_headers = list(req.headers.items())
    outcome, why, out = resign(req, fake, real, body_hash)
    if outcome != "resigned":
        ok(False, "%s: re-signed (%s: %s)" % (name, outcome, why))
        return
    algo, key_id, _, signed, sig = parse_auth(dict(out)["Authorization"])
    want, want_signed = verify(cls, real, service, method, url, out, body)
    ok(algo == "AWS4-HMAC-SHA256" and key_id == real.access_key and sig == want
       and signed == want_signed,
       "%s: botocore verifies srt's signature with the real key" % name)
    good_client, _ = verify(cls, fake, service, method, url, client_headers, body)
    bad, _ = verify(cls, fake, service, method, url, out, body)
    ok(good_client == parse_auth(dict(client_headers)["Authorization"])[4] and bad != sig,
       "%s: control: the verifier accepts the client's masked signature, "
       "rejects srt's under the masked key" % name)
    token = dict((k.lower(), v) for k, v in out).get("x-amz-security-token")
    ok(token == real.token and not any(fake.secret_key in v or real.secret_key in v
                                       for _, v in out),
       "%s: the session token is the real one (%s), no secret in any header"
       % (name, "none" if not real.token else "set"))
    sha = dict((k.lower(), v) for k, v in out).get("x-amz-content-sha256")
    if sha and len(sha) == 64:
        ok(sha == hashlib.sha256(body or b"").hexdigest(),
           "%s: x-amz-content-sha256 is the body's hash" % name)


def main():
    # a GET with a query that needs encoding, IAM style (path double-encoded)
    check_case("GET with query", SigV4Auth, "iam", "GET",
               "https://iam.amazonaws.com/?Version=2010-05-08&Action=ListUsers"
               "&Marker=a%2Fb%20c%2Bd&PathPrefix=%2Fdivision_abc%2F",
               {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"},
               None, FAKE, REAL)
    # S3 PUT over http: the payload hash is the body's, in x-amz-content-sha256
    check_case("S3 PUT with payload hash", S3SigV4Auth, "s3", "PUT",
               "http://bucket.s3.eu-west-3.amazonaws.com/dir/my%20file%2Bv1~%24.txt",
               {"Content-Type": "text/plain", "x-amz-meta-note": "  two   spaces  "},
               b"hello, world\n", FAKE, REAL)
    # S3 path style with a query, UNSIGNED-PAYLOAD, session token
    check_case("S3-style path, UNSIGNED-PAYLOAD, session token", S3SigV4Auth, "s3", "GET",
               "https://s3.eu-west-3.amazonaws.com/bucket/a//b/../c%3Dd"
               "?list-type=2&prefix=a%2Fb&max-keys=10",
               {}, None, FAKE_T, REAL_T, unsigned_s3=True)
    # STS POST with a form body and a session token: needs the body's hash
    body = b"Action=GetCallerIdentity&Version=2011-06-15"
    req = client_sign(SigV4Auth, FAKE_T, "sts", "POST", "https://sts.amazonaws.com/",
                      {"Content-Type": "application/x-www-form-urlencoded"}, body)
    outcome, why, _ = resign(req, FAKE_T, REAL_T)
    ok(outcome == "refuse" and "request body" in why,
       "STS POST without the body's hash: refused (%s)" % why)
    check_case("STS POST with session token and body hash", SigV4Auth, "sts", "POST",
               "https://sts.amazonaws.com/",
               {"Content-Type": "application/x-www-form-urlencoded"}, body, FAKE_T, REAL_T,
               body_hash=hashlib.sha256(body).hexdigest())
    # a non-S3 path with dot segments and escapes (API Gateway style)
    check_case("execute-api path with dot segments and escapes", SigV4Auth, "execute-api",
               "GET", "https://abc.execute-api.eu-west-3.amazonaws.com/prod/items/a%20b/../c%2Fd/",
               {"X-Custom": "v1"}, None, FAKE, REAL)
    print("1..%d" % n)
    return failed


if __name__ == "__main__":
    sys.exit(main())
