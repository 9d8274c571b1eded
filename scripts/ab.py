#!/usr/bin/env python3
"""ab.py — time commands against each other, interleaved in random order.

usage: scripts/ab.py N CMD_A... -- CMD_B... [-- CMD_C...]

Runs every command N times, in a new random order each round, so that a
VM whose speed drifts slows them alike, and prints each one's median, 25th
and 75th percentile and fastest wall time (stdout and stderr discarded).
For effects of a few milliseconds (start-up, a 128 MiB input), where
scripts/bench.sh's seven runs timed through /usr/bin/time are too coarse:

    scripts/ab.py 40 ./old analyze -o json kcm.log -- ./new analyze -o json kcm.log
"""
import os
import random
import statistics
import subprocess
import sys
import time


def main(argv):
    if len(argv) < 2 or not argv[0].isdigit():
        sys.exit(__doc__)
    n = int(argv[0])
    cmds, cur = [], []
    for a in argv[1:]:
        if a == "--":
            cmds.append(cur)
            cur = []
        else:
            cur.append(a)
    cmds.append(cur)
    if any(not c for c in cmds):
        sys.exit("ab.py: an empty command")
    times = [[] for _ in cmds]
    with open(os.devnull, "wb") as null:
        for _ in range(n):
            order = list(range(len(cmds)))
            random.shuffle(order)
            for j in order:
                t = time.perf_counter()
                subprocess.run(cmds[j], stdout=null, stderr=null, check=False)
                times[j].append((time.perf_counter() - t) * 1000)
    for c, ts in zip(cmds, times):
        ts.sort()
        q = statistics.quantiles(ts, n=4) if len(ts) > 1 else [ts[0]] * 3
        print(f"{' '.join(c)[:60]:60} median {statistics.median(ts):8.2f} ms  p25 {q[0]:8.2f}  p75 {q[2]:8.2f}  min {ts[0]:8.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
