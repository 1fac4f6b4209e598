#!/usr/bin/env python3
"""scripts/testbed/probe/groups-fit.py: which cost shape the warm passes follow in N
(docs/VALIDATION.md §3.7). Fits five shapes of the layers' cost, each with two free numbers,
S (one pass over the layers' weights) and g (one token's arithmetic), to the fastest warm
passes of the tiles probe (results/testbed/probe-tiles.txt) and of a run's database, by least
squares on log(predicted / measured). The head's first row (its bytes over
cpu.head_first_bandwidth of run E, 215.5 MB at 6.428 GB/s) is added to every pass and not
fitted; call overheads and attention (under 1 % at these sizes) are left out. A check of the
shape only: the profile's numbers come from `leversim calibrate`.
Usage: python3 scripts/testbed/probe/groups-fit.py [DB ...]  (default: run E's and run F's)"""
import math, sqlite3, sys

C = 215.5e6 / 6.428e9
SHAPES = {
    "roofline, batched_from 4 (run E's profile)": lambda S, g, n: n * max(S, g) if n < 4 else max(S, n * g),
    "roofline, batched_from 1": lambda S, g, n: max(S, n * g),
    "ceil(n/4) * max(S, 4 g)": lambda S, g, n: math.ceil(n / 4) * max(S, 4 * g),
    "sum over groups of max(S, tokens * g)": lambda S, g, n: (n // 4) * max(S, 4 * g) + (max(S, (n % 4) * g) if n % 4 else 0),
    "ceil(n/4) * S + n * g (cpu.batch_group)": lambda S, g, n: math.ceil(n / 4) * S + n * g,
}

def probe():
    t = {}
    for line in open("results/testbed/probe-tiles.txt"):
        n, _, s, _ = line.split()
        t[int(n)] = min(t.get(int(n), 1e9), float(s))
    return t

def warm(db):
    q = "select n_tokens, min(time_s) from tb_pass where kind = 'warm' and ctx = 0 group by 1"
    return dict(sqlite3.connect(db).execute(q).fetchall())

def simplex(f, x0, it=3000):  # Nelder-Mead
    k = len(x0)
    p = [list(x0)] + [[x0[j] * (1.3 if j == i else 1) for j in range(k)] for i in range(k)]
    for _ in range(it):
        p.sort(key=f)
        c = [sum(v[j] for v in p[:-1]) / k for j in range(k)]
        r = [2 * c[j] - p[-1][j] for j in range(k)]
        if f(r) < f(p[0]):
            e = [3 * c[j] - 2 * p[-1][j] for j in range(k)]
            p[-1] = e if f(e) < f(r) else r
        elif f(r) < f(p[-2]):
            p[-1] = r
        else:
            h = [(c[j] + p[-1][j]) / 2 for j in range(k)]
            if f(h) < f(p[-1]):
                p[-1] = h
            else:
                p = [p[0]] + [[(p[0][j] + v[j]) / 2 for j in range(k)] for v in p[1:]]
    return min(p, key=f)

def main():
    dbs = sys.argv[1:] or ["results/testbed/run-e/testbed.db", "results/testbed/testbed.db"]
    sets = [("probe", probe())] + [(db, warm(db)) for db in dbs]
    for name, shape in SHAPES.items():
        print(f"== {name}")
        for label, pts in sets:
            def cost(x):
                if min(x) <= 0:
                    return 1e9
                return sum(math.log((C + shape(x[0], x[1], n)) / t) ** 2 for n, t in pts.items())
            x = min((simplex(cost, s) for s in [(0.09, 0.01), (0.05, 0.03), (0.1, 0.035), (0.02, 0.04)]), key=cost)
            err = {n: 100 * ((C + shape(x[0], x[1], n)) / t - 1) for n, t in sorted(pts.items())}
            print(f"  {label:36s} S {x[0] * 1e3:6.1f} ms  g {x[1] * 1e3:5.2f} ms  rms {math.sqrt(cost(x) / len(pts)) * 100:5.1f} %"
                  f"  max {max(map(abs, err.values())):5.1f} %  " + " ".join(f"{n}:{e:+.0f}" for n, e in err.items()))

main()
