#!/usr/bin/env python3
"""Helpers for bench/run: process-tree memory and CPU sampling, hyperfine
JSON medians, test-tree creation and the final table/JSON report.

A sandbox runtime's "own" processes are the runtime process itself and every
descendant that is not part of the workload (the command the benchmark runs
inside the sandbox): for srt that is srt, bwrap and srt-linux-init (PID 1
and the bridge); for the reference it is node, bwrap and socat."""
import json
import os
import statistics
import sys
import time

# comm names of the workload processes the benchmark runs inside the sandbox
WORKLOAD = {"curl", "bench-load", "bash", "sh", "dash", "sleep", "cat", "touch", "true"}
TICK = os.sysconf("SC_CLK_TCK")


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def stat_fields(pid):
    s = read(f"/proc/{pid}/stat")
    if s is None:
        return None
    # comm is in parentheses and may contain spaces
    lp, rp = s.index("("), s.rindex(")")
    comm = s[lp + 1:rp]
    rest = s[rp + 2:].split()
    # rest[0] = state (field 3); ppid field 4; utime 14; stime 15
    return {"comm": comm, "ppid": int(rest[1]), "utime": int(rest[11]), "stime": int(rest[12])}


def tree(root):
    """[(pid, comm, is_own)] of root and its descendants."""
    kids = {}
    info = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        st = stat_fields(int(d))
        if st is None:
            continue
        info[int(d)] = st
        kids.setdefault(st["ppid"], []).append(int(d))
    out = []
    todo = [root]
    while todo:
        p = todo.pop()
        if p not in info:
            continue
        comm = info[p]["comm"]
        out.append((p, comm, p == root or comm not in WORKLOAD, info[p]))
        todo.extend(kids.get(p, []))
    return out


def rollup(pid):
    """(rss_kb, pss_kb) from smaps_rollup, or None."""
    s = read(f"/proc/{pid}/smaps_rollup")
    if s is None:
        return None
    rss = pss = 0
    for line in s.splitlines():
        if line.startswith("Rss:"):
            rss = int(line.split()[1])
        elif line.startswith("Pss:"):
            pss = int(line.split()[1])
    return rss, pss


def hwm(pid):
    s = read(f"/proc/{pid}/status")
    if s is None:
        return None
    for line in s.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return None


def snapshot(root):
    snap = {"root_rss_kb": 0, "root_pss_kb": 0, "own_rss_kb": 0, "own_pss_kb": 0,
            "tree_rss_kb": 0, "tree_pss_kb": 0, "procs": []}
    for pid, comm, own, _ in tree(root):
        r = rollup(pid)
        if r is None:
            continue
        rss, pss = r
        snap["procs"].append({"pid": pid, "comm": comm, "own": own, "rss_kb": rss, "pss_kb": pss})
        snap["tree_rss_kb"] += rss
        snap["tree_pss_kb"] += pss
        if own:
            snap["own_rss_kb"] += rss
            snap["own_pss_kb"] += pss
        if pid == root:
            snap["root_rss_kb"], snap["root_pss_kb"] = rss, pss
    return snap


def cmd_mem(pid, interval=0.01):
    """Sample until pid exits; print the peaks as JSON."""
    pid = int(pid)
    peak = {}
    root_hwm = 0
    nprocs = 0
    comms = set()
    while os.path.exists(f"/proc/{pid}/stat"):
        h = hwm(pid)
        if h:
            root_hwm = max(root_hwm, h)
        s = snapshot(pid)
        for k, v in s.items():
            if k != "procs":
                peak[k] = max(peak.get(k, 0), v)
        nprocs = max(nprocs, len(s["procs"]))
        for p in s["procs"]:
            comms.add(p["comm"] + ("" if p["own"] else "*"))
        time.sleep(interval)
    peak["root_hwm_kb"] = root_hwm
    peak["max_procs"] = nprocs
    peak["comms"] = sorted(comms)
    print(json.dumps(peak))


def cmd_cpu(pid):
    """Own CPU seconds (utime+stime of live own processes) as JSON."""
    total = 0
    procs = []
    for p, comm, own, st in tree(int(pid)):
        t = (st["utime"] + st["stime"]) / TICK
        procs.append({"pid": p, "comm": comm, "own": own, "cpu_s": t})
        if own:
            total += t
    print(json.dumps({"own_cpu_s": total, "procs": procs}))


def cmd_rss(pid):
    print(json.dumps(snapshot(int(pid))))


def cmd_hf(*paths):
    """name<TAB>median_ms<TAB>stddev_ms<TAB>runs per hyperfine command; the
    times of several exports of the same command list (rounds) are pooled."""
    pooled = {}
    order = []
    for path in paths:
        with open(path) as f:
            d = json.load(f)
        for r in d["results"]:
            if r["command"] not in pooled:
                order.append(r["command"])
                pooled[r["command"]] = []
            pooled[r["command"]].extend(r["times"])
    for c in order:
        times = pooled[c]
        print(f"{c}\t{statistics.median(times) * 1e3:.3f}\t"
              f"{(statistics.pstdev(times) if len(times) > 1 else 0) * 1e3:.3f}\t{len(times)}")


def cmd_mktree(root, depth, files, fan):
    """A tree of `files` empty files spread over every directory of a tree
    `depth` levels deep with `fan` subdirectories per directory, like a
    source tree (files at every level, not only in the leaves)."""
    depth, files, fan = int(depth), int(files), int(fan)
    ndirs = sum(fan ** i for i in range(depth + 1))
    per, extra = divmod(files, ndirs)
    made = 0

    def walk(path, level):
        nonlocal made, extra
        n = per + (1 if extra > 0 else 0)
        if extra > 0:
            extra -= 1
        for i in range(n):
            os.close(os.open(os.path.join(path, f"f{i}.c"), os.O_CREAT | os.O_WRONLY, 0o644))
        made += n
        if level == depth:
            return
        for i in range(fan):
            p = os.path.join(path, f"d{i}")
            os.mkdir(p)
            walk(p, level + 1)

    os.makedirs(root, exist_ok=True)
    walk(root, 0)
    print(json.dumps({"files": made, "fanout": fan, "dirs": ndirs, "depth": depth}))


# ---- report ----

def fnum(v, unit):
    if v is None:
        return "n/a"
    if unit in ("ms",):
        return f"{v:.2f} ms" if v >= 0.1 or v <= -0.1 else f"{v:.3f} ms"
    if unit == "KiB":
        return f"{v:.0f} KiB" if v >= 100 else f"{v:.1f} KiB"
    if unit == "MiB":
        return f"{v:.2f} MiB"
    if unit == "MiB/s":
        return f"{v:.0f} MiB/s"
    if unit == "req/s":
        return f"{v:.0f} req/s"
    if unit == "us":
        return f"{v:.1f} us"
    if unit == "s/GiB":
        return f"{v:.3f} s/GiB"
    if unit == "x":
        return f"{v:.2f}x"
    if unit == "":
        return f"{v:,.1f}" if v < 100 else f"{v:,.0f}"
    return f"{v:g} {unit}".strip()


# (key, label, unit, baseline key or None, baseline label, target kind, target value)
# target kinds: ratio_le (value/baseline <= t), ratio_ge, le (value <= t), ge,
# diff_le (value - baseline <= t)
ROWS = [
    ("startup.nonet", "startup `srt -c true` (no network)", "ms", "startup.bwrap", "bare bwrap", "ratio_le", 1.5),
    ("startup.net", "startup `srt -c true` (allowedDomains: proxy + bridge)", "ms", "startup.bwrap", "bare bwrap", "ratio_le", 1.5),
    ("startup.nonet.floor", "the same start against the floor", "ms", "startup.floor", "floor", "ratio_le", 1.15),
    ("startup.net.floor", "the start with the proxy against the floor", "ms", "startup.floor", "floor", "ratio_le", 1.25),
    ("startup.dry", "`srt --dry-run -c true` (denyRead [\"~/.ssh\"], allowWrite [\".\"]): settings, modules, the plans, printed; no sandbox", "ms", "startup.true", "`true`", "le", 2.0),
    ("startup.dryfloor", "an empty program loading srt's shared libraries (exec and the dynamic loader alone): the dry run's ceiling", "ms", "startup.true", "`true`", None, None),
    ("startup.bwrap", "startup bare bwrap", "ms", "startup.true", "`true`", None, None),
    ("startup.floor", "startup floor: bare bwrap + nested pid/mount namespace helper, no policy (bench/floor.c)", "ms", "startup.bwrap", "bare bwrap", None, None),
    ("startup.helper", "bwrap + srt-linux-init alone, as srt runs them (nested namespaces, /dev and /proc, seccomp, caps; no srt process)", "ms", "startup.bwrap", "bare bwrap", None, None),
    ("startup.argsblock", "bwrap's start until it waits for its options on `--args` (bench/argsblock.c): the most that starting bwrap before the plan could overlap", "ms", "startup.bwrap", "bare bwrap", None, None),
    ("startup.argsblock_after", "bwrap after its options arrive, until its exit (the same runs)", "ms", "startup.bwrap", "bare bwrap", None, None),
    ("mem.nonet.root_hwm_mib", "srt peak RSS (no network)", "MiB", None, "", "le", 4.0),
    ("mem.net.root_hwm_mib", "srt peak RSS (proxy running)", "MiB", None, "", "le", 4.0),
    ("mem.net.root_pss_mib", "srt peak PSS (proxy running)", "MiB", None, "", None, None),
    ("mem.nonet.own_rss_mib", "own processes peak RSS sum (no network)", "MiB", None, "", None, None),
    ("mem.net.own_rss_mib", "own processes peak RSS sum (proxy running)", "MiB", None, "", None, None),
    ("mem.net.own_pss_mib", "own processes peak PSS sum (proxy running)", "MiB", None, "", None, None),
    ("mem.net.tree_pss_mib", "whole tree peak PSS (incl. `sleep`)", "MiB", None, "", None, None),
    ("mem.net.time_maxrss_mib", "/usr/bin/time -v max RSS (proxy running)", "MiB", None, "", None, None),
    ("tput.http.mibs", "1 GiB plain HTTP through the proxy", "MiB/s", "tput.direct.mibs", "direct", "ratio_ge", None),
    ("tput.connect.mibs", "1 GiB CONNECT tunnel", "MiB/s", "tput.direct.mibs", "direct", "ratio_ge", 0.75),
    ("tput.socks.mibs", "1 GiB SOCKS5", "MiB/s", "tput.direct.mibs", "direct", "ratio_ge", None),
    ("tput.floor.mibs", "1 GiB through a relay that splices with no logic (bench/relay.c -s): the ceiling", "MiB/s", "tput.direct.mibs", "direct", None, None),
    ("tput.http.cpu", "own CPU per GiB, plain HTTP", "s/GiB", "tput.direct.cpu", "direct curl+server", None, None),
    ("tput.connect.cpu", "own CPU per GiB, CONNECT", "s/GiB", "tput.direct.cpu", "direct curl+server", None, None),
    ("tput.socks.cpu", "own CPU per GiB, SOCKS5", "s/GiB", "tput.direct.cpu", "direct curl+server", None, None),
    ("tput.floor.cpu", "the splicing relay's CPU per GiB", "s/GiB", "tput.direct.cpu", "direct curl+server", None, None),
    ("lat.p50", "keep-alive latency p50 (1,000 sequential)", "ms", "lat.direct.p50", "direct", "diff_le", 0.1),
    ("lat.p99", "keep-alive latency p99", "ms", "lat.direct.p99", "direct", "diff", None),
    ("lat.cpu_us_per_req", "own CPU per keep-alive request", "us", None, "", None, None),
    ("conc.rps", "50 connections, requests/s", "req/s", "conc.direct.rps", "direct", "ratio_ge", 0.5),
    ("conc.cpu_per_kreq", "own CPU per 1,000 requests (50 connections)", "ms", "conc.direct.cpu_per_kreq", "direct client+server", None, None),
    ("conc.cs_cpu_per_kreq", "client+server CPU per 1,000 requests through the proxy", "ms", "conc.direct.cpu_per_kreq", "direct", None, None),
    ("conc.floor.rps", "50 connections through a relay with no logic (bench/relay.c): the ceiling", "req/s", "conc.direct.rps", "direct", None, None),
    ("conc.floor.cpu_per_kreq", "the no-logic relay's CPU per 1,000 requests", "ms", "conc.direct.cpu_per_kreq", "direct client+server", None, None),
    ("filt.relay.rps", "filters section: 50 connections to /allow through the no-logic relay (the ceiling)", "req/s", None, "", None, None),
    ("filt.none.rps", "filters section: 50 connections through the proxy, network.filters unset (median of the rounds)", "req/s", "filt.relay.rps", "relay", "ratio_ge", 0.8),
    ("filt.rules.rps", "the same with the rules filter (20 rules, the match 19th)", "req/s", "filt.none.rps", "no filter", "ratio_ge", 0.9),
    ("filt.exec.rps", "the same with the exec filter and a Python decider", "req/s", "filt.none.rps", "no filter", "ratio_ge", None),
    ("filt.none.rps_paired", "no filter / relay requests/s: median of the per-round ratios", "x", None, "", "ge", 0.8),
    ("filt.rules.rps_paired", "rules / no filter requests/s: median of the per-round ratios", "x", None, "", "ge", 0.9),
    ("filt.exec.rps_paired", "exec / no filter requests/s: median of the per-round ratios", "x", None, "", None, None),
    ("filt.relay.cpu_per_kreq", "the relay's CPU per 1,000 requests (50 connections)", "ms", None, "", None, None),
    ("filt.none.cpu_per_kreq", "srt's own CPU per 1,000 requests, no filter (50 connections)", "ms", "filt.relay.cpu_per_kreq", "relay", None, None),
    ("filt.rules.cpu_per_kreq", "srt's own CPU per 1,000 requests, rules", "ms", "filt.none.cpu_per_kreq", "no filter", None, None),
    ("filt.exec.cpu_per_kreq", "srt's own CPU per 1,000 requests, exec (the decider apart)", "ms", "filt.none.cpu_per_kreq", "no filter", None, None),
    ("filt.exec.decider_cpu_per_kreq", "the Python decider's CPU per 1,000 requests", "ms", None, "", None, None),
    ("filt.none.cpu_ratio", "relay CPU per request / srt's, no filter (the ratio where only this load runs)", "x", None, "", "ge", 0.8),
    ("filt.rules.cpu_ratio", "no filter CPU per request / rules'", "x", None, "", "ge", 0.9),
    ("filt.relay.syscalls_per_req", "the relay's system calls per request", "", None, "", None, None),
    ("filt.none.syscalls_per_req", "srt's proxy's system calls per request, no filter", "", "filt.relay.syscalls_per_req", "relay", None, None),
    ("filt.rules.syscalls_per_req", "srt's proxy's system calls per request, rules", "", "filt.none.syscalls_per_req", "no filter", None, None),
    ("filt.instr.relay", "user-space instructions per request, the relay (callgrind)", "", None, "", None, None),
    ("filt.instr.none", "user-space instructions per request, srt's proxy alone, no filter", "", "filt.instr.relay", "relay", None, None),
    ("filt.instr.rules", "user-space instructions per request, srt's proxy alone, rules", "", "filt.instr.none", "no filter", None, None),
    ("filt.none.p50", "keep-alive latency p50 through the proxy, no filter (1,000 sequential)", "ms", None, "", None, None),
    ("filt.rules.p50", "keep-alive latency p50, rules filter", "ms", "filt.none.p50", "no filter", "diff", None),
    ("filt.exec.p50", "keep-alive latency p50, exec filter (Python decider)", "ms", "filt.none.p50", "no filter", "diff", None),
    ("tun.1000.own_kib", "idle tunnel memory, 1,000 tunnels (srt + bridge)", "KiB", None, "", "le", 16),
    ("tun.1000.root_kib", "idle tunnel memory, 1,000 tunnels (srt process)", "KiB", None, "", "le", 16),
    ("tun.big.own_kib", "idle tunnel memory, N_BIG tunnels (srt + bridge)", "KiB", None, "", "le", 16),
    ("tun.big.root_kib", "idle tunnel memory, N_BIG tunnels (srt process)", "KiB", None, "", "le", 16),
    ("tun.1000.usable", "1,000 tunnels usable (echo ok / opened)", "", None, "", "all", None),
    ("tun.big.usable", "N_BIG tunnels usable (echo ok / opened)", "", None, "", "all", None),
    ("walk.d3", "startup, cwd = 100k files at depth 3, allowWrite [\".\"]", "ms", "walk.empty", "empty cwd", "diff_le", 10),
    ("walk.d6", "startup, cwd = 100k files at depth 6, allowWrite [\".\"]", "ms", "walk.empty", "empty cwd", "diff", None),
    ("walk.empty", "startup, empty cwd, allowWrite [\".\"]", "ms", "startup.nonet", "allowWrite []", "diff", None),
    ("walk.dry.d3", "plan + walk only (--dry-run), depth 3", "ms", "walk.dry.empty", "empty cwd", "diff", None),
    ("walk.dry.d6", "plan + walk only (--dry-run), depth 6", "ms", "walk.dry.empty", "empty cwd", "diff", None),
    ("build.srt.cpu", "build-shaped load (bench/buildmix.c, make -j2), allowWrite [\".\"]: CPU time of the whole tree", "ms", "build.out.cpu", "outside", "ratio_le", 1.05),
    ("build.deny.cpu", "the same with denyRead (read violations observed and reported): CPU time", "ms", "build.out.cpu", "outside", "ratio_le", 1.05),
    ("build.srt.paired", "allowWrite: the median of the per-round CPU time ratios (each round's own outside build)", "x", None, "", "le", 1.05),
    ("build.deny.paired", "denyRead: the median of the per-round CPU time ratios", "x", None, "", "le", 1.05),
    ("build.wnotify.paired", "a supervisor answering each call srt observes with allowWrite at once: the median of the per-round ratios (the floor of any observer of those calls)", "x", None, "", None, None),
    ("build.notify.paired", "a supervisor answering each call srt observes with denyRead at once (every open besides): the median of the per-round ratios", "x", None, "", None, None),
    ("build.srt", "build-shaped load, allowWrite [\".\"]: wall time (the scheduler's share, see README)", "ms", "build.out", "outside", None, None),
    ("build.deny", "the same with denyRead: wall time", "ms", "build.out", "outside", None, None),
    ("build.wnotify.cpu", "the same build outside, each call srt observes with allowWrite (write opens, names made, removed, renamed or changed, Unix sockets) sent to a supervisor that answers at once (bench/notifyfloor.c --calls writes): the floor of any observer of those calls", "ms", "build.out.cpu", "outside", None, None),
    ("build.notify.cpu", "the same, each call srt observes with denyRead (those and every open; --calls all)", "ms", "build.out.cpu", "outside", None, None),
    ("realbuild.nodeny.cpu", "make -j2 of this tree (--only realbuild), allowWrite the tree: CPU time of the whole tree", "ms", "realbuild.out.cpu", "outside", "ratio_le", 1.05),
    ("realbuild.deny.cpu", "the same with denyRead (read violations observed and reported): CPU time", "ms", "realbuild.out.cpu", "outside", "ratio_le", 1.05),
    ("realbuild.wnotify.cpu", "the same build outside under bench/notifyfloor.c --calls writes: the floor of any observer of the calls srt observes with allowWrite", "ms", "realbuild.out.cpu", "outside", None, None),
    ("realbuild.notify.cpu", "the same under --calls all: the floor of any observer of the calls srt observes with denyRead", "ms", "realbuild.out.cpu", "outside", None, None),
    ("realbuild.nodeny.paired", "make -j2, allowWrite: the median of the per-round CPU time ratios", "x", None, "", "le", 1.05),
    ("realbuild.deny.paired", "make -j2, denyRead: the median of the per-round CPU time ratios", "x", None, "", "le", 1.05),
    ("realbuild.wnotify.paired", "make -j2 under --calls writes: the median of the per-round ratios", "x", None, "", None, None),
    ("realbuild.notify.paired", "make -j2 under --calls all: the median of the per-round ratios", "x", None, "", None, None),
    ("open.root.us", "CPU time of one open (whole tree), srt, file in the write root (bench/opencost.c)", "us", "open.out.us", "outside", None, None),
    ("open.other.us", "CPU time of one open, srt, file outside the write roots", "us", "open.out.us", "outside", None, None),
    ("open.deny.us", "CPU time of one open, srt with denyRead (the read observer), file in the write root", "us", "open.out.us", "outside", None, None),
    ("open.notify.us", "CPU time of one open answered at once by a supervisor (bench/notifyfloor.c)", "us", "open.out.us", "outside", None, None),
]


# Figures whose target is a ratio, and the run's own ceiling for them: what
# a no-logic stand-in (the relays, the floor launcher) reaches on this
# machine in the same run. A target beyond it is beyond any implementation
# of the same design here, and the report says so beside the verdict.
CEILINGS = {
    "startup.nonet": "startup.floor",
    "startup.net": "startup.floor",
    "startup.nonet.floor": "startup.helper",
    "startup.net.floor": "startup.helper",
    "startup.dry": "startup.dryfloor",
    "tput.connect.mibs": "tput.floor.mibs",
    "conc.rps": "conc.floor.rps",
    "build.srt.cpu": "build.wnotify.cpu",
    "build.deny.cpu": "build.notify.cpu",
    "build.srt.paired": "build.wnotify.paired",
    "build.deny.paired": "build.notify.paired",
    "realbuild.nodeny.cpu": "realbuild.wnotify.cpu",
    "realbuild.deny.cpu": "realbuild.notify.cpu",
    "realbuild.nodeny.paired": "realbuild.wnotify.paired",
    "realbuild.deny.paired": "realbuild.notify.paired",
}


def ceiling_note(kind, t, c, b):
    """'' or why the target is beyond this run's ceiling c (baseline b)."""
    if c in (None, 0) or b in (None, 0) or t is None:
        return ""
    if kind == "ratio_ge" and c < t * b:
        return f"ceiling {c / b:.2f}x is below the target"
    if kind == "ratio_le" and c > t * b:
        return f"floor {c / b:.2f}x is above the target"
    if kind == "le" and c > t:
        return f"ceiling {c:.2f} is above the target {t:g}"
    return ""


def judge(kind, t, v, b):
    if kind in (None, "diff") or v is None:
        return "", ""
    if kind == "all":
        return "all usable", ("PASS" if v is not None and v == b else "MISS")
    if b is None and kind not in ("le", "ge"):
        return "", "n/a"
    if kind == "ratio_le":
        return f"<= {t}x", "PASS" if v <= t * b else "MISS"
    if kind == "ratio_ge":
        if t is None:
            return "", ""
        return f">= {t * 100:.0f}%", "PASS" if v >= t * b else "MISS"
    if kind == "le":
        return f"<= {t:g}", "PASS" if v <= t else "MISS"
    if kind == "ge":
        return f">= {t:g}", "PASS" if v >= t else "MISS"
    if kind == "diff_le":
        return f"<= +{t:g}", "PASS" if v - b <= t else "MISS"
    return "", ""


def cmd_report(kv_path, json_path, md_path=None):
    kv = {}
    meta = {}
    with open(kv_path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or " " not in line:
                continue
            k, v = line.split(" ", 1)
            if k.startswith("meta."):
                meta[k[5:]] = v
                continue
            try:
                kv[k] = float(v)
            except ValueError:
                kv[k] = v
    impls = ["srt"] + (["ref"] if any(k.startswith("ref.") for k in kv) else [])
    nbig = meta.get("n_big", "10000")
    out = {"meta": meta, "figures": {}}
    lines = []
    hdr = "| figure | value | baseline | ratio | target | result |"
    lines.append(hdr)
    lines.append("|---|---|---|---|---|---|")
    for impl in impls:
        pre = "" if impl == "srt" else "ref."
        if impl == "ref":
            lines.append(f"| **reference {meta.get('ref_version', '')}** | | | | | |")
        for key, label, unit, bkey, blabel, kind, t in ROWS:
            label = label.replace("N_BIG", f"{int(nbig):,}")
            v = kv.get(pre + key)
            if v is None:
                continue
            if kind == "all":
                opened = kv.get(pre + key.replace("usable", "opened"))
                n = kv.get(pre + key.replace("usable", "n"))
                tgt, res = judge(kind, t, v, n)
                if opened != n:
                    res = "MISS"
                lines.append(f"| {label} | {v:.0f} echoed / {opened:.0f} opened of {n:.0f} | | | {tgt} | {res} |")
                out["figures"][pre + key] = {"label": label, "echoed": v, "opened": opened,
                                             "tunnels": n, "result": res}
                continue
            # baselines are shared (bwrap, direct) and measured once
            # walk baselines are each implementation's own empty-cwd start
            b = kv.get((pre + bkey) if bkey and (bkey.startswith("walk.") or key == "walk.empty") else bkey) if bkey else None
            ratio = ""
            if b not in (None, 0) and isinstance(v, float):
                ratio = f"{v / b:.2f}x" if kind not in ("diff_le", "diff") else f"{v - b:+.2f} ms"
            tgt, res = judge(kind, t, v, b)
            btxt = f"{blabel} {fnum(b, unit)}" if b is not None else ""
            ceil = ceiling_note(kind, t, kv.get(pre + CEILINGS[key]) if key in CEILINGS else None, b)
            shown = f"{res} ({ceil})" if res == "MISS" and ceil else res
            lines.append(f"| {label} | {fnum(v, unit)} | {btxt} | {ratio} | {tgt} | {shown} |")
            out["figures"][pre + key] = {"label": label, "value": v, "unit": unit,
                                         "baseline": b, "baseline_label": blabel,
                                         "target": tgt, "result": res}
            if ceil:
                out["figures"][pre + key]["beyond_ceiling"] = ceil
    out["raw"] = kv
    table = "\n".join(lines)
    with open(json_path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    if md_path:
        with open(md_path, "w") as f:
            f.write(table + "\n")
    print(table)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    {"mem": cmd_mem, "cpu": cmd_cpu, "rss": cmd_rss, "hf": cmd_hf,
     "mktree": cmd_mktree, "report": cmd_report}[cmd](*args)


if __name__ == "__main__":
    main()
