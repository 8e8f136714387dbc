#!/usr/bin/env python3
"""bench/compare_report.py RAW.csv — the tables and summary lines of
bench/compare and bench/osu-compare, from their raw rows (one per
measurement and round):

    round,who,kind,op,mode,transport,ranks,bytes,us,extra

`who` is bolt, openmpi or mpich; `us` is always a time (latency or time per
call; for bandwidth and message rate, microseconds per message), so every
ratio is Bolt's time over the peer's: above 1, Bolt is slower (for a rate,
1/ratio is Bolt's rate over the peer's). `extra` is Bolt's algorithm for a
collective, the pairs for a window, else empty. A row with no `us` whose
`extra` is "failed" or "not built" marks a run of `who` that failed (or a
program that did not build): its cells without a time say so, and so does
the operation's summary line when Bolt has no time at all:

    summary shm 2r osu    osu_put_latency/lock/create vs openmpi  bolt failed (every run)

Per operation (kind, op, mode, transport, ranks) and peer, a summary line:

    summary shm 2r coll reduce/barrier  vs openmpi  worst 2.31 at 64 B  rounds 1.85..2.90  bolt 3.10..4.90 us

worst = the largest ratio of medians over the sizes, and the size where it
is; rounds = the ratio in each round at that size (runs are interleaved, so
a round's ratio compares runs minutes apart at most), min..max; bolt =
Bolt's own time at that size over the rounds, min..max. A wide rounds range
(flagged "spread") means a bimodal or noisy result: look at every round."""
import csv
import statistics
import sys

PEERS = ("openmpi", "mpich")
NAME_W = 26  # the operation column's width: widened in main() to the longest name


def opname(op, mode):
    return op if mode in ("", "-") else f"{op}/{mode}"


def size(n):
    for unit, k in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= k and n % k == 0:
            return f"{n // k} {unit}"
    return f"{n} B"


def load(path):
    """{(kind, op, mode, transport, ranks, bytes): {who: {round: us}}}, extras,
    {(kind, op, mode, transport, ranks): {who: why}} for the failed runs"""
    rows, extra, failed = {}, {}, {}
    for rec in csv.reader(open(path)):
        if not rec or rec[0].startswith("#"):
            continue
        if len(rec) != 10:
            sys.exit(f"compare_report: {path}: {rec!r}: expected 10 fields "
                     "(round,who,kind,op,mode,transport,ranks,bytes,us,extra)")
        rnd, who, kind, op, mode, t, np, n, us, ex = rec
        if not us:
            if ex in ("failed", "not built"):
                failed.setdefault((kind, op, mode, t, int(np)), {})[who] = ex
            continue
        k = (kind, op, mode, t, int(np), int(n))
        rows.setdefault(k, {}).setdefault(who, {})[int(rnd)] = float(us)
        if who == "bolt" and ex:
            extra[k] = ex
    return rows, extra, failed


def med(d):
    return statistics.median(d.values()) if d else None


def summaries(rows):
    """One (group, peer, worst, bytes, (rmin, rmax), (bmin, bmax)) per
    operation and peer that has numbers on both sides."""
    groups = {}
    for k in rows:
        groups.setdefault(k[:5], []).append(k)
    out = []
    for g in sorted(groups, key=lambda g: (g[3], g[4], g[0], g[1], g[2])):
        for peer in PEERS:
            best = None
            for k in sorted(groups[g], key=lambda k: k[5]):
                b, p = rows[k].get("bolt", {}), rows[k].get(peer, {})
                if not b or not p or med(p) <= 0:
                    continue
                ratio = med(b) / med(p)
                if best is None or ratio > best[0]:
                    best = (ratio, k)
            if best is None:
                continue
            ratio, k = best
            b, p = rows[k]["bolt"], rows[k][peer]
            per = [b[r] / p[r] for r in b if r in p and p[r] > 0]
            out.append((g, peer, ratio, k[5], (min(per), max(per)), (min(b.values()), max(b.values()))))
    return out


def summary_line(s):
    (kind, op, mode, t, np), peer, ratio, n, (rlo, rhi), (blo, bhi) = s
    name = opname(op, mode)
    flag = "  spread" if rlo > 0 and rhi / rlo > 1.3 else ""
    return (f"summary {t} {np}r {kind:6} {name:{NAME_W}} vs {peer:8} worst {ratio:5.2f} at {size(n):>8}"
            f"  rounds {rlo:.2f}..{rhi:.2f}  bolt {blo:.2f}..{bhi:.2f} us{flag}")


def failed_lines(rows, failed):
    """Summary lines for the operations where Bolt has no time at all but a
    failure mark, one per peer that has times."""
    out = []
    for g in sorted(failed, key=lambda g: (g[3], g[4], g[0], g[1], g[2])):
        why = failed[g].get("bolt")
        if not why or any(k[:5] == g and rows[k].get("bolt") for k in rows):
            continue
        kind, op, mode, t, np = g
        name = opname(op, mode)
        for peer in PEERS:
            if any(k[:5] == g and rows[k].get(peer) for k in rows):
                out.append(f"summary {t} {np}r {kind:6} {name:{NAME_W}} vs {peer:8} bolt {why} (every run)")
    return out


def tables(rows, extra, failed=None):
    failed = failed or {}

    def f(x, who, g, w=10):
        if x is not None:
            return f"{x:{w}.2f}"
        return f"{failed.get(g, {}).get(who, '-'):>{w}}"
    groups = {}
    for k in rows:
        groups.setdefault((k[0], k[3], k[4]), []).append(k)
    for kind, t, np in sorted(groups):
        print(f"\n[{kind}, {t}, {np} ranks] (us; ratio = Bolt's time / the peer's, above 1: Bolt slower)")
        print(f"  {'op':{NAME_W}} {'bytes':>9} {'bolt':>10} {'openmpi':>10} {'mpich':>10} {'b/ompi':>7} {'b/mpich':>7}  extra")
        for k in sorted(groups[(kind, t, np)], key=lambda k: (k[1], k[2], k[5])):
            v = [med(rows[k].get(w, {})) for w in ("bolt",) + PEERS]
            r = [f"{v[0] / x:7.2f}" if v[0] is not None and x else "      -" for x in v[1:]]
            name = opname(k[1], k[2])
            ex = extra.get(k, "")
            if k[0] == "window" and v[0] and not k[1].startswith("cpu_"):
                ex = f"bolt {k[5] / v[0]:.1f} MB/s a pair, {int(ex or 1) / v[0]:.3f} Mmsg/s"
            g = k[:5]
            print(f"  {name:{NAME_W}} {k[5]:9} {f(v[0], 'bolt', g)} {f(v[1], 'openmpi', g)} {f(v[2], 'mpich', g)}"
                  f" {r[0]} {r[1]}  {ex}")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench/compare_report.py RAW.csv")
    global NAME_W
    rows, extra, failed = load(sys.argv[1])
    NAME_W = max([NAME_W] + [len(opname(k[1], k[2])) for k in rows])
    if not rows:
        sys.exit(f"compare_report: {sys.argv[1]}: no measurements (did every run fail?)")
    rounds = sorted({r for k in rows for w in rows[k].values() for r in w})
    print(f"Medians of {len(rounds)} interleaved round(s)")
    tables(rows, extra, failed)
    print("\nSummary: per operation and peer, the worst ratio of medians (Bolt's time / the peer's)")
    for s in summaries(rows):
        why = failed.get(s[0], {}).get("bolt")
        print(summary_line(s) + (f"  bolt {why} in some runs" if why else ""))
    for line in failed_lines(rows, failed):
        print(line)
    print("\ncsv: bench,kind,op,mode,transport,ranks,bytes,bolt_us,openmpi_us,mpich_us")
    for k in sorted(rows):
        v = [med(rows[k].get(w, {})) for w in ("bolt",) + PEERS]
        print(f"bench,{','.join(str(x) for x in k)}," + ",".join("" if x is None else f"{x:.3f}" for x in v))


if __name__ == "__main__":
    main()
