"""Per-thread CPU of one process over a window, grouped by thread name (digits stripped). Usage: threads.py PID SECONDS"""

import os, re, sys, time, collections

pid, win = sys.argv[1], float(sys.argv[2])


def snap():
    d = {}
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            s = open(f"/proc/{pid}/task/{t}/stat").read()
        except OSError:
            continue
        comm = s[s.index("(") + 1 : s.rindex(")")]
        f = s.rsplit(")", 1)[1].split()
        d[t] = (comm, int(f[11]) + int(f[12]))
    return d


a = snap()
time.sleep(win)
b = snap()
g = collections.Counter()
n = collections.Counter()
for t, (comm, v) in b.items():
    k = re.sub(r"\d+", "#", comm)
    g[k] += v - a.get(t, (comm, 0))[1]
    n[k] += 1
tot = sum(g.values())
print(f"threads {len(b)}, total {tot / os.sysconf('SC_CLK_TCK') / win:.2f} cores")
for k, v in g.most_common(15):
    print(f"{k:24s} x{n[k]:4d} {100 * v / max(tot, 1):5.1f} %")
