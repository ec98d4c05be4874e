"""Raw proxy client for the escape battery (runs inside the sandbox).

    proxyclient.py http    HOST:PORT [PATH]   GET in absolute form
    proxyclient.py connect HOST:PORT          CONNECT, then a GET in the tunnel
    proxyclient.py socks   HOST PORT          SOCKS5 CONNECT, ATYP chosen from
                                              HOST (IPv4, [IPv6] or a name)
    proxyclient.py batch                      one request per stdin line,
                                              "MODE ARG..." as above
    proxyclient.py raw     FILE               send FILE's bytes (\\n -> \\r\\n)
                                              as is, print every status line
Every line printed starts with the mode; "-> NNN" is the proxy's (or the
tunnelled server's) answer, "-> refused ..." a refused SOCKS request,
"-> error ..." a connection problem. The proxy address and credentials
come from HTTPS_PROXY, as for any client in the sandbox.
"""
import base64, os, socket, sys, urllib.parse

url = urllib.parse.urlsplit(os.environ.get("HTTPS_PROXY", ""))
PHOST, PPORT = url.hostname or "localhost", url.port or 3128
USER = urllib.parse.unquote(url.username or "")
TOK = urllib.parse.unquote(url.password or "")
AUTH = "Proxy-Authorization: Basic %s\r\n" % base64.b64encode(
    ("%s:%s" % (USER, TOK)).encode()).decode()


def conn(port=None):
    s = socket.create_connection((PHOST, port or PPORT), timeout=8)
    return s


def read_head(s):
    data = b""
    while b"\r\n\r\n" not in data:
        d = s.recv(4096)
        if not d:
            break
        data += d
    return data


def status(data):
    line = data.split(b"\r\n", 1)[0].decode("latin-1")
    parts = line.split(" ")
    return parts[1] if len(parts) > 1 else "none(%r)" % line[:40]


def http(target, path="/"):
    s = conn()
    s.sendall(("GET http://%s%s HTTP/1.1\r\nHost: %s\r\n%sConnection: close\r\n\r\n"
               % (target, path, target, AUTH)).encode())
    return status(read_head(s))


def connect(target):
    s = conn()
    s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n%s\r\n" % (target, target, AUTH)).encode())
    code = status(read_head(s))
    if code != "200":
        return code
    s.sendall(b"GET /in-tunnel HTTP/1.1\r\nHost: tunnel\r\nConnection: close\r\n\r\n")
    return "200 then " + status(read_head(s))


def socks(host, port):
    s = conn(1080)
    s.sendall(b"\x05\x01\x02")
    if s.recv(2) != b"\x05\x02":
        return "refused (no user/password method)"
    u, p = USER.encode(), TOK.encode()
    s.sendall(b"\x01" + bytes([len(u)]) + u + bytes([len(p)]) + p)
    if s.recv(2) != b"\x01\x00":
        return "refused (auth)"
    if host.startswith("["):
        addr = b"\x04" + socket.inet_pton(socket.AF_INET6, host[1:-1])
    else:
        try:
            addr = b"\x01" + socket.inet_pton(socket.AF_INET, host)
        except OSError:
            h = host.encode()
            addr = b"\x03" + bytes([len(h)]) + h
    s.sendall(b"\x05\x01\x00" + addr + int(port).to_bytes(2, "big"))
    r = s.recv(4)
    if len(r) < 2 or r[1] != 0:
        return "refused %s" % (r[1] if len(r) > 1 else "?")
    # skip the bound address
    atyp = r[3]
    s.recv({1: 4, 4: 16}.get(atyp, 0) + 2 if atyp != 3 else s.recv(1)[0] + 2)
    s.sendall(b"GET /via-socks HTTP/1.1\r\nHost: socks\r\nConnection: close\r\n\r\n")
    return "200 then " + status(read_head(s))


def raw(path):
    data = open(path, "rb").read().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    data = data.replace(b"@AUTH@\r\n", AUTH.encode())
    s = conn()
    s.sendall(data)
    s.settimeout(4)
    out = b""
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            out += d
    except OSError:
        pass
    return " ".join(l.split(" ")[1] for l in out.decode("latin-1").split("\r\n")
                    if l.startswith("HTTP/1.") and " " in l) or "none"


def one(mode, args):
    try:
        r = {"http": http, "connect": connect, "socks": socks, "raw": raw}[mode](*args)
    except (OSError, ValueError, IndexError, KeyError, TypeError) as e:
        r = "error %s" % e.__class__.__name__
    print("%s %s -> %s" % (mode, " ".join(args), r), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "batch":
        for line in sys.stdin:
            w = line.split()
            if w:
                one(w[0], w[1:])
    else:
        one(sys.argv[1], sys.argv[2:])
