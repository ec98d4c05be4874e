#!/usr/bin/env python3
"""A decider speaking the decider protocol v1 (length-prefixed JSON frames)
for the tests of the exec filter and of `srt proxy`. It reads the proxy's
frames from fd 0 (or --fd N, a socket) and writes to fd 1 (or the same
socket), and decides by the request's path:

  /allow...    allow
  /deny...     deny 451 "the test decider says no"
  /set...      allow with setHeaders {"x-added": ["1", "2"]} (refused 403
               on plain HTTP unless header sets are enabled there)
  /cred...     allow with cred "github", credential "tok" and
               removeHeaders ["x_drop"]
  /rm...       allow with removeHeaders ["x-drop"]
  /big...      allow with setHeaders x-big: 300 "A"s
  /bodyallow.. need_body max 64, then allow with setHeaders
               {"x-body": [the body]}
  /sleep...    no verdict, ever (the proxy's 5 s clock answers 503)
  /garbage...  a frame that is not JSON (the link dies, fails closed)
  /die...      exit at once (EOF: every pending request fails closed)
  /body...     need_body max 4, then deny 403 with the body it saw
  anything else: deny 403

An opaque tunnel (the exec filter's connection hook: method CONNECT, path
"host:port") is allowed when its TLS hello named no server, and denied 451
"no TLS tunnels here" when it did (the frame has "sni"); to a host whose
name starts with "edit." it is allowed with removeHeaders, to one starting
with "body." answered need_body (both wrong for a tunnel).

--allow / --deny add entries to the hello's lists. --hello-first=verdict
sends a verdict instead of the hello (a protocol violation); --exit-now
exits before the hello. Each request is appended to --log FILE as one
JSON line (the frame as received)."""
import base64
import json
import os
import socket
import struct
import sys


def read_exact(f, n):
    b = b""
    while len(b) < n:
        c = f(n - len(b))
        if not c:
            sys.exit(0)
        b += c
    return b


def main():
    args = sys.argv[1:]
    allow, deny, log, fd = [], [], None, None
    hello_first = "hello"
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--allow":
            allow.append(args[i + 1]); i += 2
        elif a == "--deny":
            deny.append(args[i + 1]); i += 2
        elif a == "--log":
            log = args[i + 1]; i += 2
        elif a == "--fd":
            fd = int(args[i + 1]); i += 2
        elif a.startswith("--hello-first="):
            hello_first = a.split("=", 1)[1]; i += 1
        elif a == "--exit-now":
            sys.exit(0)
        else:
            sys.exit("decider.py: unknown argument " + a)
    if fd is not None:
        s = socket.socket(fileno=fd)
        rd, wr = s.recv, s.sendall
    else:
        rd = lambda n: os.read(0, n)
        def wr(b):
            while b:
                b = b[os.write(1, b):]

    def send(obj):
        b = json.dumps(obj).encode()
        wr(struct.pack(">I", len(b)) + b)

    def recv():
        n = struct.unpack(">I", read_exact(rd, 4))[0]
        return json.loads(read_exact(rd, n))

    hello = recv()
    assert hello == {"t": "hello", "proto": 1}, hello
    if hello_first == "verdict":
        send({"t": "verdict", "id": 1, "action": "allow"})
    else:
        send({"t": "hello", "proto": 1, "allowedDomains": allow, "deniedDomains": deny})
    paths = {}
    while True:
        m = recv()
        if log:
            with open(log, "a") as f:
                f.write(json.dumps(m) + "\n")
        if m["t"] == "body":
            data = base64.b64decode(m["data"]).decode("latin-1")
            if paths.pop(m["id"], "").startswith("/bodyallow"):
                send({"t": "verdict", "id": m["id"], "action": "allow",
                      "setHeaders": {"x-body": [data + (" cut" if m.get("cut") else "")]}})
                continue
            send({"t": "verdict", "id": m["id"], "action": "deny", "status": 403,
                  "reason": "body %r cut=%s" % (data, m.get("cut", False))})
            continue
        p, rid = m["path"], m["id"]
        if m["method"] == "CONNECT":
            if m["host"].startswith("edit."):
                send({"t": "verdict", "id": rid, "action": "allow", "removeHeaders": ["x-a"]})
            elif m["host"].startswith("body."):
                send({"t": "verdict", "id": rid, "action": "need_body", "max": 4})
            elif "sni" in m:
                send({"t": "verdict", "id": rid, "action": "deny", "status": 451,
                      "reason": "no TLS tunnels here"})
            else:
                send({"t": "verdict", "id": rid, "action": "allow"})
        elif p.startswith("/allow"):
            send({"t": "verdict", "id": rid, "action": "allow"})
        elif p.startswith("/deny"):
            send({"t": "verdict", "id": rid, "action": "deny", "status": 451,
                  "reason": "the test decider says no"})
        elif p.startswith("/set"):
            send({"t": "verdict", "id": rid, "action": "allow",
                  "setHeaders": {"x-added": ["1", "2"]}})
        elif p.startswith("/cred"):
            send({"t": "verdict", "id": rid, "action": "allow", "cred": "github",
                  "credential": "tok", "removeHeaders": ["x_drop"]})
        elif p.startswith("/rm"):
            send({"t": "verdict", "id": rid, "action": "allow", "removeHeaders": ["x-drop"]})
        elif p.startswith("/big"):
            send({"t": "verdict", "id": rid, "action": "allow",
                  "setHeaders": {"x-big": ["A" * 300]}})
        elif p.startswith("/bodyallow"):
            paths[rid] = p
            send({"t": "verdict", "id": rid, "action": "need_body", "max": 64})
        elif p.startswith("/sleep"):
            pass
        elif p.startswith("/garbage"):
            wr(struct.pack(">I", 5) + b"nope!")
        elif p.startswith("/die"):
            sys.exit(0)
        elif p.startswith("/body"):
            send({"t": "verdict", "id": rid, "action": "need_body", "max": 4})
        else:
            send({"t": "verdict", "id": rid, "action": "deny", "status": 403})


main()
