"""The Python binding against a real libsrt (SRT_LIBRARY) and backend
(SRT_BACKEND_DIR), run as root and as an unprivileged user."""
import os
import subprocess
import sys
import time

import pytest

from srt import Sandbox, SandboxError

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def settings(work, denied=("denied.test",), allow_write=None):
    return {
        "network": {"allowedDomains": [], "deniedDomains": list(denied)},
        "filesystem": {"denyRead": [str(work / "secret")],
                       "allowWrite": [str(work)] if allow_write is None else allow_write,
                       "denyWrite": []},
    }


def test_options_have_every_field_of_the_c_structure():
    """libsrt reads the whole struct srt_options it is given: a field the
    ctypes declaration lacks is read from whatever memory follows it."""
    import re
    import srt._lib as lib
    header = os.environ.get("SRT_HEADER")
    if not header or not os.path.exists(header):
        pytest.skip("SRT_HEADER does not name include/srt/srt.h")
    text = open(header).read()
    body = re.search(r"struct srt_options \{(.*?)\n\};", text, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    names = re.findall(r"\**\s*([a-z_]+)\s*;", body)
    assert [f[0] for f in lib.Options._fields_] == names


def test_a_sandbox_runs_commands_not_only_plans(work):
    with Sandbox(settings(work)) as sb:
        for _ in range(3):
            r = sb.run("echo ran", capture_output=True, text=True)
            assert r.stdout == "ran\n"


def test_run_records_violations_for_its_command(work):
    (work / "secret").write_text("CANARY")
    with Sandbox(settings(work)) as sb:
        r = sb.run("cat secret; echo ok > out.txt; echo no > /etc/srt-py-test",
                   command_id="first", capture_output=True, text=True)
        assert "CANARY" not in r.stdout
        assert (work / "out.txt").read_text() == "ok\n"
        assert not os.path.exists("/etc/srt-py-test")
        lines = [v.line for v in sb.violations("first")]
        assert any("/etc/srt-py-test" in l for l in lines), lines
        assert sb.violations("other") == []
        annotated = sb.annotate_stderr("first", r.stderr)
        assert annotated.startswith(r.stderr)
        assert "<sandbox_violations>" in annotated and "/etc/srt-py-test" in annotated


def test_two_hundred_commands_each_attributed(work):
    """200 sequential commands in one sandbox: every third one makes a
    violation naming its own number, and only its key gets it."""
    with Sandbox(settings(work)) as sb:
        total0 = sb.violation_total()
        bad = 0
        for i in range(200):
            key = f"cmd-{i:03d}"
            if i % 3 == 0:
                cmd = f"echo x > /etc/srt-py-{i}; true"
                bad += 1
            else:
                cmd = f"echo {i} > n.txt"
            r = sb.run(cmd, command_id=key, capture_output=True)
            assert r.returncode == 0, (i, r.stderr)
            lines = [v.line for v in sb.violations(key)]
            if i % 3 == 0:
                assert lines and all(f"/etc/srt-py-{i}" in l for l in lines), (i, lines)
            else:
                assert lines == [], (i, lines)
        assert sb.violation_total() - total0 >= bad
        # the store keeps the last 100, each still with its own key
        for v in sb.violations():
            n = int(v.key.split("-")[1])
            assert f"/etc/srt-py-{n}" in v.line


def test_network_denial_attributed(work):
    with Sandbox(settings(work)) as sb:
        r = sb.run(["curl", "-s", "-m", "5", "http://denied.test/"], command_id="net-1",
                   capture_output=True, text=True)
        assert r.returncode != 0 or "blocked" in r.stdout.lower()
        lines = [v.line for v in sb.violations("net-1")]
        assert any(l.startswith("deny network-outbound denied.test:80") for l in lines), lines


def test_custom_config_replaces_the_write_list(work):
    with Sandbox(settings(work)) as sb:
        r = sb.run("echo a > a.txt", command_id="c-ro", capture_output=True,
                   custom_config={"filesystem": {"allowWrite": []}})
        assert r.returncode != 0 and not (work / "a.txt").exists()
        r = sb.run("echo b > b.txt", command_id="c-rw", capture_output=True)
        assert r.returncode == 0 and (work / "b.txt").exists()
        with pytest.raises(SandboxError) as e:
            sb.wrap("true", custom_config={"network": {"deniedDomains": []}})
        assert "network.deniedDomains" in str(e.value)


def test_wrap_for_an_own_spawner(work):
    with Sandbox(settings(work)) as sb:
        w = sb.wrap(["/bin/sh", "-c", "echo $SANDBOX_RUNTIME"], command_id="own")
        p = subprocess.Popen(w.argv, stdout=subprocess.PIPE, **w.popen_kwargs())
        w.started(p.pid)
        out, _ = p.communicate()
        w.finished(p.returncode)
        assert out == b"1\n"


def test_bad_settings_name_the_key(work):
    with pytest.raises(SandboxError) as e:
        Sandbox({"network": {"allowedDomains": [7], "deniedDomains": []},
                 "filesystem": {"denyRead": [], "allowWrite": [], "denyWrite": []}})
    assert "allowedDomains" in str(e.value)


def test_update_settings_invalid_changes_nothing(work):
    with Sandbox(settings(work)) as sb:
        with pytest.raises(SandboxError):
            sb.update_settings({"network": {"allowedDomains": "x"}})
        assert sb.run("true").returncode == 0


def test_closed_sandbox_refuses(work):
    sb = Sandbox(settings(work))
    sb.close()
    with pytest.raises(SandboxError):
        sb.run("true")


def test_pty_example_streams(work):
    (work / "s.json").write_text(__import__("json").dumps(settings(work)))
    r = subprocess.run([sys.executable, os.path.join(HERE, "..", "examples", "pty_stream.py"),
                        str(work / "s.json"),
                        "for i in 1 2 3; do echo line $i; done; [ -t 1 ] && echo on-a-terminal; echo no > /etc/srt-pty"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "line 3" in r.stdout and "on-a-terminal" in r.stdout
    assert "<sandbox_violations>" in r.stdout and "/etc/srt-pty" in r.stdout


def test_unconfirmed_sandbox_kills_the_command(work):
    """A process that is not the sandbox srt built (here: the spawner ran
    something else) is never left running: started() fails and kills it."""
    with Sandbox(settings(work)) as sb:
        w = sb.wrap(["/bin/true"], command_id="impostor")
        p = subprocess.Popen(["sleep", "100"])
        with pytest.raises(SandboxError):
            w.started(p.pid)
        assert p.wait(timeout=30) == -9
        w.finished(137)
        assert sb.run("true").returncode == 0


def test_finished_without_a_spawn(work):
    with Sandbox(settings(work)) as sb:
        for _ in range(3):
            sb.wrap("true").finished(-1)
        assert sb.run("echo again", capture_output=True).stdout == b"again\n"
        with pytest.raises(SandboxError):
            sb.wrap("true", custom_config={"filesystem": {"allowWrite": "x"}})


def _web_server():
    """A loopback HTTP server logging the paths it served."""
    import http.server
    import threading

    seen = []

    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            seen.append(self.path)
            body = b"hello\n"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, seen


def test_ask_callback_allows_denies_and_fails(work):
    good, good_seen = _web_server()
    bad, bad_seen = _web_server()
    boom, boom_seen = _web_server()
    ports = {"good": good.server_address[1], "bad": bad.server_address[1],
             "boom": boom.server_address[1]}
    asked = []

    def ask(host, port):
        asked.append((host, port))
        if port == ports["good"]:
            return True
        if port == ports["bad"]:
            return (False, "not <approved>\nfor this session")
        raise RuntimeError("the prompt crashed")

    curl = 'curl -s -m 10 --noproxy "" -o /dev/null -w "%{http_code} " '
    cmd = " ; ".join(f"{curl} http://localhost:{p}/{n}" for n, p in ports.items())
    try:
        with Sandbox(settings(work), ask=ask) as sb:
            r = sb.run(cmd, command_id="ask-1", capture_output=True, text=True)
            lines = [v.line for v in sb.violations("ask-1")]
    finally:
        for s in (good, bad, boom):
            s.shutdown()
    assert r.stdout.split() == ["200", "403", "403"], (r.stdout, r.stderr)
    assert sorted(asked) == sorted(("localhost", p) for p in ports.values())
    assert good_seen == ["/good"] and bad_seen == [] and boom_seen == []
    assert f"deny network-outbound localhost:{ports['bad']} (not approved for this session)" in lines
    assert f"deny network-outbound localhost:{ports['boom']} (permission prompt failed)" in lines


def test_ask_callback_remember_and_deny_list(work):
    srv, seen = _web_server()
    port = srv.server_address[1]
    asked = []

    def ask(host, port):
        asked.append(host)
        return True

    curl = 'curl -s -m 10 --noproxy "" -o /dev/null -w "%{http_code} " '
    try:
        with Sandbox(settings(work), ask=ask, ask_remember=True) as sb:
            r = sb.run(f"{curl} http://localhost:{port}/a; {curl} http://localhost:{port}/b; "
                       f"{curl} http://denied.test/", command_id="ask-2",
                       capture_output=True, text=True)
    finally:
        srv.shutdown()
    assert r.stdout.split() == ["200", "200", "403"], (r.stdout, r.stderr)
    assert asked == ["localhost"], asked  # remembered; the deny-listed host never asked
    assert seen == ["/a", "/b"]
