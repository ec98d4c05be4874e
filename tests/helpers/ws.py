#!/usr/bin/env python3
"""A minimal WebSocket (RFC 6455) echo server and client for the tests of
Upgrade requests through srt's proxy, standard library only.

  ws.py serve PORTFILE LOG [CERT KEY]
      a loopback server (TLS when CERT and KEY are given), one thread per
      connection. GET with "Upgrade: websocket": 101 with the accept key,
      a text frame "welcome" in the same write as the 101 head, then every
      data frame echoed back until a close frame. GET /rogue: a 101 the
      client never asked for. Any other GET: 200 "plain". Each request is
      logged as "METHOD PATH upgrade=yes|no"; each echoed frame as
      "echo N bytes".

  ws.py client URL
      ws:// through $http_proxy (absolute-form request), wss:// through
      $https_proxy (CONNECT, then TLS verified against the default trust
      store: inside the sandbox, srt's bundle). The first text frame goes
      out in the same write as the handshake (before the 101 is read), then
      a 300 KB binary frame and a close. Prints "ok STATUS" and the
      frames, or "fail ..." and the answer's status line. Exit 0 on
      success.
"""
import base64
import hashlib
import os
import socket
import ssl
import struct
import sys
import threading
import urllib.parse

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def accept_key(key):
    return base64.b64encode(hashlib.sha1(key + GUID).digest())


def frame(opcode, payload, mask):
    head = bytes([0x80 | opcode])
    n = len(payload)
    m = 0x80 if mask else 0
    if n < 126:
        head += bytes([m | n])
    elif n < 65536:
        head += bytes([m | 126]) + struct.pack(">H", n)
    else:
        head += bytes([m | 127]) + struct.pack(">Q", n)
    if not mask:
        return head + payload
    k = os.urandom(4)
    # whole-buffer XOR: int arithmetic, fast enough for a few hundred KB
    rep = (k * (n // 4 + 1))[:n]
    masked = (int.from_bytes(payload, "big") ^ int.from_bytes(rep, "big")).to_bytes(n, "big") if n else b""
    return head + k + masked


def read_exact(f, n):
    b = f.read(n)
    if b is None or len(b) != n:
        raise EOFError("short read (%d of %d)" % (len(b or b""), n))
    return b


def read_frame(f):
    b0, b1 = read_exact(f, 2)
    opcode = b0 & 0x0F
    n = b1 & 0x7F
    if n == 126:
        n = struct.unpack(">H", read_exact(f, 2))[0]
    elif n == 127:
        n = struct.unpack(">Q", read_exact(f, 8))[0]
    k = read_exact(f, 4) if b1 & 0x80 else None
    p = read_exact(f, n) if n else b""
    if k:
        rep = (k * (n // 4 + 1))[:n]
        p = (int.from_bytes(p, "big") ^ int.from_bytes(rep, "big")).to_bytes(n, "big") if n else b""
    return opcode, p


def read_head(f):
    line = f.readline(65536)
    if not line:
        return None, {}
    hdrs = {}
    while True:
        h = f.readline(65536)
        if h in (b"\r\n", b"\n", b""):
            break
        k, _, v = h.partition(b":")
        hdrs[k.strip().lower().decode("latin-1")] = v.strip().decode("latin-1")
    return line.decode("latin-1").strip(), hdrs


# ---- server -------------------------------------------------------------------

def serve_conn(c, note):
    f = c.makefile("rb")
    while True:
        line, hdrs = read_head(f)
        if not line:
            return
        method, target = line.split()[:2]
        if target.startswith("http"):
            target = "/" + target.split("/", 3)[3] if target.count("/") >= 3 else "/"
        up = hdrs.get("upgrade", "").lower() == "websocket" and \
            "upgrade" in hdrs.get("connection", "").lower()
        note("%s %s upgrade=%s" % (method, target, "yes" if up else "no"))
        if target == "/rogue":
            c.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                      b"Connection: Upgrade\r\n\r\nrogue bytes")
            return
        if not up:
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nplain\n")
            continue
        key = hdrs.get("sec-websocket-key", "").encode()
        c.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                  b"Connection: Upgrade\r\nSec-WebSocket-Accept: " + accept_key(key) +
                  b"\r\n\r\n" + frame(1, b"welcome", False))
        while True:
            op, p = read_frame(f)
            if op == 8:
                c.sendall(frame(8, p[:2], False))
                return
            if op in (1, 2):
                note("echo %d bytes" % len(p))
                c.sendall(frame(op, p, False))


def serve(portfile, logfile, cert=None, key=None):
    log = open(logfile, "a", buffering=1)
    lock = threading.Lock()

    def note(s):
        with lock:
            log.write(s + "\n")

    ctx = None
    if cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)
    with open(portfile + ".tmp", "w") as p:
        p.write(str(srv.getsockname()[1]))
    os.rename(portfile + ".tmp", portfile)

    def run(c):
        try:
            if ctx:
                c = ctx.wrap_socket(c, server_side=True)
            serve_conn(c, note)
        except (OSError, EOFError, ValueError, ssl.SSLError):
            pass
        finally:
            c.close()

    while True:
        c, _ = srv.accept()
        threading.Thread(target=run, args=(c,), daemon=True).start()


# ---- client -------------------------------------------------------------------

def client(url):
    u = urllib.parse.urlsplit(url)
    tls = u.scheme == "wss"
    proxy = urllib.parse.urlsplit(os.environ["https_proxy" if tls else "http_proxy"])
    auth = ""
    if proxy.username:
        cred = "%s:%s" % (urllib.parse.unquote(proxy.username), urllib.parse.unquote(proxy.password or ""))
        auth = "Proxy-Authorization: Basic %s\r\n" % base64.b64encode(cred.encode()).decode()
    s = socket.create_connection((proxy.hostname, proxy.port), timeout=20)
    authority = "%s:%d" % (u.hostname, u.port)
    path = u.path or "/"
    if tls:
        s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n%s\r\n" % (authority, authority, auth)).encode())
        f = s.makefile("rb")
        line, _ = read_head(f)
        if not line or " 200 " not in line + " ":
            print("fail CONNECT: %s" % line)
            return 1
        s = ssl.create_default_context().wrap_socket(s, server_hostname=u.hostname)
        target, extra = path, ""
    else:
        target, extra = "http://%s%s" % (authority, path), auth
    key = base64.b64encode(os.urandom(16))
    req = ("GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n%s\r\n"
           % (target, authority, key.decode(), extra)).encode()
    # the first frame rides with the handshake: the proxy must carry bytes
    # that arrive before the switch
    s.sendall(req + frame(1, b"early hello", True))
    f = s.makefile("rb")
    line, hdrs = read_head(f)
    if not line or line.split()[1:2] != ["101"]:
        rest = b""
        try:
            rest = f.read(2000) or b""
        except OSError:
            pass
        print("fail status: %s %s" % (line, rest.decode("latin-1").replace("\n", " ")[:300]))
        return 1
    if hdrs.get("sec-websocket-accept", "").encode() != accept_key(key):
        print("fail accept key: %r" % hdrs.get("sec-websocket-accept"))
        return 1
    got = []
    op, p = read_frame(f)
    got.append(p)
    op, p = read_frame(f)
    got.append(p)
    big = os.urandom(300 * 1024)
    s.sendall(frame(2, big, True))
    op, p = read_frame(f)
    s.sendall(frame(8, struct.pack(">H", 1000), True))
    op2, _ = read_frame(f)
    if got != [b"welcome", b"early hello"] or p != big or op2 != 8:
        print("fail frames: %r big=%s close=%d" % (got, p == big, op2))
        return 1
    print("ok 101 welcome, early hello, %d bytes echoed, closed" % len(p))
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(*sys.argv[2:])
    else:
        sys.exit(client(sys.argv[2]))
