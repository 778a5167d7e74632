#!/usr/bin/env python3
"""Two builds of singlecast compared on the feed benchmark's library figures, interleaved.

usage: Benchmarks/ab.py A_BIN B_BIN [--items N] [--runs N]

A_BIN and B_BIN are singlecast executables (copy .build/release/singlecast aside before
building the other variant). On ../shared/bench/genfeed.py N (20,000 unless told), each round
runs, for A then B (B then A on odd rounds), the figures of `bench.py feed` that involve the
library, and one more:

  new library    episodes FILE --json into an empty library (the feed's first save)
  listed before  episodes FILE --json again (an unchanged feed: nothing written)
  listing only   episodes --json of the current podcast (read from the library, no parse)

Printed per figure: the medians of A's and B's wall and CPU seconds, and the median over
rounds of B's wall and CPU as a ratio to A's in the same round.
"""
import os, shutil, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import GENFEED, measure  # noqa: E402

FIGURES = ["new library", "listed before", "listing only"]


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    binaries = {"A": os.path.abspath(args[0]), "B": os.path.abspath(args[1])}
    items = int(args[args.index("--items") + 1]) if "--items" in args else 20000
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 9
    work = tempfile.mkdtemp(prefix="singlecast-ab-")
    try:
        feed = os.path.join(work, "feed.xml")
        subprocess.run([sys.executable, GENFEED, str(items), feed], check=True)

        def round_of(variant):
            home = os.path.join(work, "home-" + variant)
            env = dict(os.environ, SINGLECAST_HOME=home)
            shutil.rmtree(home, ignore_errors=True)
            command = [binaries[variant], "episodes"]
            return {
                "new library": measure(command + [feed, "--json"], env=env),
                "listed before": measure(command + [feed, "--json"], env=env),
                "listing only": measure(command + ["--json"], env=env),
            }

        rounds = []
        for number in range(runs):
            order = ["A", "B"] if number % 2 == 0 else ["B", "A"]
            rounds.append({variant: round_of(variant) for variant in order})
        print(f"{items} items, {runs} interleaved rounds (medians; B as a ratio of A in the same round)")
        print(f"  A: {binaries['A']}\n  B: {binaries['B']}")
        for figure in FIGURES:
            a = [r["A"][figure] for r in rounds]
            b = [r["B"][figure] for r in rounds]
            wall_ratio = statistics.median(y[0] / x[0] for x, y in zip(a, b))
            cpu_ratio = statistics.median(y[1] / max(x[1], 1e-9) for x, y in zip(a, b))
            print(
                f"  {figure:<14} A {statistics.median(x[0] for x in a):7.3f} s ({statistics.median(x[1] for x in a):6.3f} cpu)"
                f"  B {statistics.median(y[0] for y in b):7.3f} s ({statistics.median(y[1] for y in b):6.3f} cpu)"
                f"  B/A {wall_ratio:5.3f} wall {cpu_ratio:5.3f} cpu")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
