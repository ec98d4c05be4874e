#!/usr/bin/env python3
"""A loopback smart-HTTP git server for the tests: every request runs git's
own http-backend as a CGI program (GIT_PROJECT_ROOT = ROOT, every repository
exported, pushes accepted as user "test"), and is appended to LOG as
"METHOD PATH" before it runs, so a test can assert on what reached the
server. One request per connection (Connection: close). With CERT and KEY
it speaks HTTPS.

  git-http.py HTTP_BACKEND ROOT PORTFILE LOG [CERT KEY]
"""
import os
import socket
import ssl
import subprocess
import sys
import threading


def read_head(f):
    line = f.readline(65536)
    if not line:
        return None, None
    hdrs = {}
    while True:
        h = f.readline(65536)
        if h in (b"\r\n", b"\n", b""):
            break
        k, _, v = h.partition(b":")
        hdrs[k.strip().lower().decode("latin-1")] = v.strip().decode("latin-1")
    return line.decode("latin-1").split(), hdrs


def read_body(f, hdrs):
    if hdrs.get("transfer-encoding", "").lower() == "chunked":
        out = b""
        while True:
            size = int(f.readline(1024).split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while f.readline(1024) not in (b"\r\n", b"\n", b""):
                    pass
                return out
            out += f.read(size)
            f.readline(1024)
    return f.read(int(hdrs.get("content-length", "0")))


def serve(c, backend, root, note):
    f = c.makefile("rb")
    req, hdrs = read_head(f)
    if not req or len(req) < 3:
        return
    method, target = req[0], req[1]
    if target.startswith("http://"):
        target = "/" + target.split("/", 3)[3] if target.count("/") >= 3 else "/"
    path, _, query = target.partition("?")
    note("%s %s" % (method, path))
    body = read_body(f, hdrs)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "GIT_PROJECT_ROOT": root,
        "GIT_HTTP_EXPORT_ALL": "1",
        "REMOTE_USER": "test",
        "REMOTE_ADDR": "127.0.0.1",
        "GATEWAY_INTERFACE": "CGI/1.1",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "CONTENT_TYPE": hdrs.get("content-type", ""),
        "CONTENT_LENGTH": str(len(body)),
    }
    if "content-encoding" in hdrs:
        env["HTTP_CONTENT_ENCODING"] = hdrs["content-encoding"]
    if "git-protocol" in hdrs:
        env["GIT_PROTOCOL"] = hdrs["git-protocol"]
    p = subprocess.run([backend], input=body, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, timeout=60)
    head, _, rest = p.stdout.partition(b"\r\n\r\n")
    if not _:
        head, _, rest = p.stdout.partition(b"\n\n")
    status = b"200 OK"
    lines = []
    for h in head.splitlines():
        if h.lower().startswith(b"status:"):
            status = h.split(b":", 1)[1].strip()
        elif h:
            lines.append(h)
    c.sendall(b"HTTP/1.1 " + status + b"\r\n" + b"".join(l + b"\r\n" for l in lines) +
              b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(rest) + rest)


def main():
    backend, root, portfile, logfile = sys.argv[1:5]
    ctx = None
    if len(sys.argv) > 6:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[5], sys.argv[6])
    log = open(logfile, "a", buffering=1)
    lock = threading.Lock()

    def note(s):
        with lock:
            log.write(s + "\n")

    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
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
            serve(c, backend, root, note)
        except (OSError, ValueError, subprocess.SubprocessError):
            pass
        finally:
            c.close()

    while True:
        c, _ = srv.accept()
        threading.Thread(target=run, args=(c,), daemon=True).start()


if __name__ == "__main__":
    main()
