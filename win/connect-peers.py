#!/usr/bin/env python3
"""The two loopback peers win/test.sh runs srt-connect.exe against: a
CONNECT proxy and an echo server, both on 127.0.0.1 (Wine's sockets are
the host's). Prints "proxy PORT" and "echo PORT" on stdout, then serves
until killed.

The proxy requires "Proxy-Authorization: Basic" of --user:--token (407
otherwise), so a tunnel shows srt-connect took its credentials from
HTTPS_PROXY and percent-decoded them. A target named refused.example gets
403; "echo:1" (any port) is tunnelled to the echo server; anything else
502. A tunnel passes each side's end of input on as a half-close.

The echo server sends back every byte it gets; at the end of its input it
sends "echo: end of input seen" and closes: the line arrives only when
srt-connect shut the tunnel's sending side at its own end of input and
still read the tunnel. A client whose first bytes are "close" gets
"closing" and the connection closed at once, input or not."""
import argparse
import base64
import socket
import sys
import threading


def pump(src, dst):
    try:
        while True:
            b = src.recv(65536)
            if not b:
                break
            dst.sendall(b)
    except OSError:
        pass
    try:
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def echo_client(c):
    with c:
        first = True
        while True:
            b = c.recv(65536)
            if not b:
                c.sendall(b"echo: end of input seen\n")
                return
            if first and b.startswith(b"close"):
                c.sendall(b"closing\n")
                return
            first = False
            c.sendall(b)


def proxy_client(c, want, echo_port):
    with c:
        head = b""
        while b"\r\n\r\n" not in head:
            b = c.recv(1)
            if not b or len(head) > 8192:
                return
            head += b
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        auth = [l.split(":", 1)[1].strip() for l in lines[1:]
                if l.lower().startswith("proxy-authorization:")]
        if len(parts) != 3 or parts[0] != "CONNECT":
            c.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
            return
        if auth != ["Basic " + want]:
            c.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\n\r\n")
            return
        host = parts[1].rsplit(":", 1)[0]
        if host == "refused.example":
            c.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
            return
        if host != "echo":
            c.sendall(b"HTTP/1.1 502 Bad Gateway\r\n\r\n")
            return
        up = socket.create_connection(("127.0.0.1", echo_port))
        c.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        t = threading.Thread(target=pump, args=(up, c), daemon=True)
        t.start()
        pump(c, up)
        t.join()
        up.close()


def serve(ls, fn, *args):
    while True:
        c, _ = ls.accept()
        threading.Thread(target=fn, args=(c,) + args, daemon=True).start()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--user", required=True)
    ap.add_argument("--token", required=True)
    a = ap.parse_args()
    want = base64.b64encode(("%s:%s" % (a.user, a.token)).encode()).decode()
    es = socket.socket()
    es.bind(("127.0.0.1", 0))
    es.listen(16)
    ps = socket.socket()
    ps.bind(("127.0.0.1", 0))
    ps.listen(16)
    threading.Thread(target=serve, args=(es, echo_client), daemon=True).start()
    print("echo %d" % es.getsockname()[1])
    print("proxy %d" % ps.getsockname()[1], flush=True)
    serve(ps, proxy_client, want, es.getsockname()[1])


if __name__ == "__main__":
    sys.exit(main())
