#!/usr/bin/env python3
"""Start a server and a client process, wait until N calls are connected, then measure CPU (/proc utime+stime)
and received packets over a fixed window. Usage: run.py STACK N [WINDOW]"""

import json, os, subprocess, sys, time, urllib.request, signal

STACK, N = sys.argv[1], int(sys.argv[2])
WIN = float(sys.argv[3]) if len(sys.argv) > 3 else 20.0
HERE = os.path.dirname(os.path.abspath(__file__))
SRV_STATS = "http://127.0.0.1:8701/stats"
CLI_STATS = "http://127.0.0.1:8702/stats"
# The repository's venv (make test creates it); VENV_PYTHON overrides.
VENV = os.environ.get("VENV_PYTHON", os.path.join(HERE, "..", "..", ".venv", "bin", "python"))
MUX = os.environ.get("MUX", "0")
PROF = os.environ.get("PROF")
CMDS = {
    "pion": (
        [f"{HERE}/pion/pionbench", "-mode", "server", "-mux", MUX] + (["-cpuprofile", PROF] if PROF else []),
        [f"{HERE}/pion/pionbench", "-mode", "client", "-n", str(N)],
    ),
    "aiortc": (
        [VENV, f"{HERE}/aiortc_bench.py", "server"],
        [VENV, f"{HERE}/aiortc_bench.py", "client", str(N)],
    ),
    "gst": (
        ["/usr/bin/python3", f"{HERE}/gst_bench.py", "server"],
        ["/usr/bin/python3", f"{HERE}/gst_bench.py", "client", str(N)],
    ),
    # gst server against the pion client (pion client is cheap, isolates the server figure)
    "gst-srv/pion-cli": (
        ["/usr/bin/python3", f"{HERE}/gst_bench.py", "server"],
        [f"{HERE}/pion/pionbench", "-mode", "client", "-allif", "-n", str(N)],
    ),
    # pion sidecar exchanging payloads with a Python engine stand-in over a Unix socket (engine CPU measured apart)
    "pion-ipc": (
        [f"{HERE}/pion/pionbench", "-mode", "server", "-ipc", "/tmp/spike16.sock"],
        [f"{HERE}/pion/pionbench", "-mode", "client", "-n", str(N)],
    ),
    "aiortc-srv/pion-cli": (
        [VENV, f"{HERE}/aiortc_bench.py", "server"],
        [f"{HERE}/pion/pionbench", "-mode", "client", "-n", str(N)],
    ),
}
TCK = os.sysconf("SC_CLK_TCK")


def cpu(pid):  # seconds of utime+stime of pid and its threads
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / TCK


def stats(url):
    return json.load(urllib.request.urlopen(url, timeout=10))


def main():
    scmd, ccmd = CMDS[STACK]
    os.makedirs(f"{HERE}/logs", exist_ok=True)
    log = open(f"{HERE}/logs/{STACK.replace('/', '_')}-{N}.log", "w")
    eng = None
    if STACK == "pion-ipc":
        eng = subprocess.Popen([VENV, f"{HERE}/ipc_engine.py", "/tmp/spike16.sock"], stdout=log, stderr=log)
        time.sleep(2)
    srv = subprocess.Popen(scmd, stdout=log, stderr=log)
    time.sleep(1.5)
    cli = subprocess.Popen(ccmd, stdout=log, stderr=log)
    t0 = time.time()
    try:
        while True:
            time.sleep(1)
            try:
                s, c = stats(SRV_STATS), stats(CLI_STATS)
            except Exception:
                s = c = {"connected": -1}
            if s["connected"] >= N and c["connected"] >= N:
                break
            if time.time() - t0 > 30 + N * 0.3 or srv.poll() is not None or cli.poll() is not None:
                print(
                    f"{STACK} N={N}: not connected after {time.time() - t0:.0f}s: srv {s.get('connected')} cli {c.get('connected')}"
                )
                return
        setup = time.time() - t0
        time.sleep(3)  # settle
        la0 = open("/proc/loadavg").read().split()[:3]
        s0, c0 = stats(SRV_STATS), stats(CLI_STATS)
        e0 = cpu(eng.pid) if eng else 0
        a0, b0, w0 = cpu(srv.pid), cpu(cli.pid), time.time()
        time.sleep(WIN)
        a1, b1, w1 = cpu(srv.pid), cpu(cli.pid), time.time()
        e1 = cpu(eng.pid) if eng else 0
        s1, c1 = stats(SRV_STATS), stats(CLI_STATS)
        la1 = open("/proc/loadavg").read().split()[:3]
        win = w1 - w0

        def deliv(x0, x1):
            d = [b - a for a, b in zip(x0["rx"], x1["rx"])]
            return sum(d) / (N * 50 * win), min(d) / (50 * win)

        sd, smin = deliv(s0, s1)
        cd, cmin = deliv(c0, c1)
        txr = lambda x0, x1: round(
            sum(b - a for a, b in zip(x0.get("tx", []), x1.get("tx", []))) / (N * 50 * win), 3
        )
        pk = lambda x0, x1, key: sum(b - a for a, b in zip(x0.get(key, []), x1.get(key, [])))
        spk = pk(s0, s1, "rx") + pk(s0, s1, "tx")
        cpk = pk(c0, c1, "rx") + pk(c0, c1, "tx")
        dcs = sum(b - a for a, b in zip(s0.get("dc", []), s1.get("dc", [])))
        res = dict(
            stack=STACK,
            N=N,
            window=round(win, 1),
            setup_s=round(setup, 1),
            server_ms=round((a1 - a0) / (N * win) * 1000, 2),
            client_ms=round((b1 - b0) / (N * win) * 1000, 2),
            srv_cores=round((a1 - a0) / win, 2),
            cli_cores=round((b1 - b0) / win, 2),
            srv_rx=round(sd, 3),
            srv_rx_min=round(smin, 3),
            cli_rx=round(cd, 3),
            cli_rx_min=round(cmin, 3),
            srv_us_pkt=round((a1 - a0) * 1e6 / max(spk, 1), 1),
            cli_us_pkt=round((b1 - b0) * 1e6 / max(cpk, 1), 1),
            srv_tx=txr(s0, s1),
            cli_tx=txr(c0, c1),
            srv_dc_msgs_per_call_s=round(dcs / (N * win), 2),
            load=f"{'/'.join(la0)} -> {'/'.join(la1)}",
            mux=MUX,
            engine_ms=round((e1 - e0) / (N * win) * 1000, 3) if eng else None,
        )
        print(json.dumps(res))
        with open(f"{HERE}/results.jsonl", "a") as f:
            f.write(json.dumps(res) + "\n")
    finally:
        for p in (cli, srv):
            p.send_signal(signal.SIGTERM)
        if eng:
            eng.send_signal(signal.SIGTERM)
        for p in (cli, srv) + ((eng,) if eng else ()):
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


main()
