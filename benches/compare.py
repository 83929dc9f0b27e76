"""The table benches/compare.sh prints: for each criterion benchmark, its median in every
round on each side, and the ratio of the means of the medians, after / before, with their
geometric mean. Reads the logs `bench-{before,after}-ROUND-BENCH.log` in the folder given."""

import collections
import glob
import os
import re
import statistics
import sys

UNITS = {"ps": 1e-12, "ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}
SKIP = ("Benchmarking", "Found", "Running", "Finished", "Gnuplot", "WARNING", "change",
        "No change", "Performance", "Change", "thrpt")


def medians(folder):
    """{benchmark: {side: [median per round, in seconds]}}."""
    found = collections.defaultdict(lambda: collections.defaultdict(list))
    for path in sorted(glob.glob(os.path.join(folder, "bench-*-*-*.log"))):
        side = os.path.basename(path).split("-")[1]
        name = None
        for line in open(path, encoding="utf-8", errors="replace"):
            same = re.match(r"^(\S.*?)\s+time:\s+\[\S+ \S+ (\S+) (\S+) \S+ \S+\]", line)
            if same:
                found[same.group(1).strip()][side].append(float(same.group(2)) * UNITS[same.group(3)])
                name = None
                continue
            below = re.match(r"^\s+time:\s+\[\S+ \S+ (\S+) (\S+) \S+ \S+\]", line)
            if below and name:
                found[name][side].append(float(below.group(1)) * UNITS[below.group(2)])
                name = None
                continue
            if line.strip() and not line[0].isspace() and not line.startswith(SKIP):
                name = line.strip()
    return found


def shown(seconds):
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-12:.3g} ps"


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "."
    found = medians(folder)
    ratios = []
    print("| benchmark | before | after | after / before |")
    print("|---|---:|---:|---:|")
    for name in sorted(found):
        b, a = found[name]["before"], found[name]["after"]
        if not a or not b:
            continue
        r = statistics.mean(a) / statistics.mean(b)
        ratios.append(r)
        print(f"| {name} | {' / '.join(map(shown, b))} | {' / '.join(map(shown, a))} | {r:.3f} |")
    if ratios:
        print(f"\ngeometric mean of after / before over {len(ratios)} benchmarks: "
              f"{statistics.geometric_mean(ratios):.3f}")
    else:
        print("no benchmark ran on both sides", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
