#!/usr/bin/env python3
"""Measures twoclocks as a user waits for it and writes docs/performance.md from the figures.

Every figure in docs/performance.md comes from one run of this script: the page is
benches/performance.md.in with each {{name}} replaced by what was measured here, and a
heading that names the machine, the commit and the date. Run it by hand (it takes about
twenty minutes on two cores; it is not part of cargo test or CI):

    benches/measure.py                      # measures and rewrites docs/performance.md
    benches/measure.py --out -              # prints the page instead
    benches/measure.py --sizes 1e6,1e7,1e8  # the scale table up to 10^8 events (needs duckdb)
    benches/measure.py --quick              # one round, smaller inputs: to try the script
    benches/measure.py --before OLD_BINARY  # the goals table, old against new, alternated
        [--before-label 'the release build of a7bd743']  # how the page names it
    benches/measure.py --advise-1e8         # the goals' advice over 10^8 events, without the
                                            # scale table at that size

What it measures:
- whole commands, each run --rounds times alternated with what it is compared against
  (run, then frontier, then run ...), wall time and peak resident memory (the child's
  rusage);
- DuckDB's group-by over the same files, in process, when `duckdb` imports in the Python
  named by --duckdb-python (python3 -m venv /tmp/duck && /tmp/duck/bin/pip install duckdb);
  DuckDB also writes the Parquet files; without it the Parquet rows say so;
- the criterion benchmarks (cargo bench), their median times;
- with --before, the goals table: each goal's command run alternated with the same command of
  the binary given (before, after, before, after ...), old and new side by side.
"""

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BIN = os.path.join(ROOT, "target", "release", "twoclocks")
KEYS = "abcdefghijklmnop"
SWEEP = ["--lags", "0s..120s/5s", "--graces", "0s..120s/5s"]
# The most events `twoclocks stream` generates at once.
GENERATED_MAX = 50_000_000


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def timed(cmd):
    """Runs `cmd`, its output thrown away: (wall seconds, peak resident memory in MB, from
    the child's own resource usage)."""
    with open(os.devnull, "wb") as null:
        start = time.perf_counter()
        child = subprocess.Popen(cmd, stdout=null, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit status {child.returncode}")
    return wall, usage.ru_maxrss / 1024


def alternated(cmds, rounds):
    """Each command of `cmds` (a dict name -> argv) run `rounds` times, alternated; the
    median wall time and the largest peak memory of each."""
    walls = {k: [] for k in cmds}
    mems = {k: [] for k in cmds}
    for r in range(rounds):
        for k, c in cmds.items():
            w, m = timed(c)
            walls[k].append(w)
            mems[k].append(m)
            log(f"  round {r + 1} {k}: {w:.2f} s, {m:.0f} MB")
    return {k: (statistics.median(walls[k]), max(mems[k]), walls[k]) for k in cmds}


def megabytes(mb):
    """A peak memory in MB, shown in GB from 1 GB up."""
    return f"{mb / 1024:.1f} GB" if mb >= 1024 else f"{mb:.0f} MB"


def secs(s):
    return f"{s:.2f} s" if s >= 0.995 else f"{s * 1000:.0f} ms"


def span(walls):
    lo, hi = min(walls), max(walls)
    return secs(lo) if abs(hi - lo) < 0.005 else f"{secs(lo)}–{secs(hi)}"


def rate(n, s):
    r = n / s
    return f"{r / 1e6:.1f} M" if r >= 1e6 else f"{r / 1e3:.0f} k"


def count(n):
    return f"10^{len(str(int(n))) - 1}" if str(int(n)).strip("0") == "1" else f"{int(n):,}"


class Figures(dict):
    def put(self, name, value):
        self[name] = value
        log(f"{name} = {value}")


def duckdb_query(python, path, kind):
    """DuckDB's count per (key, minute) over `path`, in process: the query's seconds."""
    reader = {"csv": "read_csv", "parquet": "read_parquet", "jsonl": "read_json"}[kind]
    code = f"""
import duckdb, time, json
c = duckdb.connect()
q = "select key, floor(event_time_ms / 60000) as minute, count(*) from {reader}('{path}') group by all"
c.sql(q).fetchall()
best = []
for _ in range(3):
    t = time.perf_counter(); c.sql(q).fetchall(); best.append(time.perf_counter() - t)
print(json.dumps(best))
"""
    return json.loads(sh([python, "-c", code]))


def duckdb_first(python, path, kind, rounds):
    """DuckDB's count per (key, minute) over `path` as its first query in a fresh process,
    `rounds` times: the query's seconds each time (what DuckDB's own command line would take,
    without the interpreter's start)."""
    reader = {"csv": "read_csv", "parquet": "read_parquet", "jsonl": "read_json"}[kind]
    code = f"""
import duckdb, time
c = duckdb.connect()
q = "select key, floor(event_time_ms / 60000) as minute, count(*) from {reader}('{path}') group by all"
t = time.perf_counter(); c.sql(q).fetchall(); print(time.perf_counter() - t)
"""
    return [float(sh([python, "-c", code])) for _ in range(rounds)]


def write_parquet(python, csv, parquet):
    code = f"""
import duckdb
duckdb.sql(\"copy (select * from read_csv('{csv}', columns={{'event_time_ms': 'DOUBLE', 'proc_time_ms': 'DOUBLE', 'key': 'VARCHAR'}}, header=true)) to '{parquet}' (format parquet)\")
"""
    sh([python, "-c", code])


def join_parquet(python, parts, parquet):
    """One Parquet file of the CSV `parts` one after another: each part's clocks moved on by
    the previous parts' last processing time (and a second), sorted by processing time."""
    code = f"""
import duckdb
parts = {parts!r}
cols = "columns={{'event_time_ms': 'DOUBLE', 'proc_time_ms': 'DOUBLE', 'key': 'VARCHAR'}}, header=true"
offsets, at = [], 0.0
for p in parts:
    offsets.append(at)
    last = duckdb.sql("select max(proc_time_ms) from read_csv('" + p + "', " + cols + ")").fetchall()[0][0]
    at += last + 1000.0
union = " union all ".join(
    "select event_time_ms + " + repr(o) + " as event_time_ms, proc_time_ms + " + repr(o)
    + " as proc_time_ms, key from read_csv('" + p + "', " + cols + ")"
    for p, o in zip(parts, offsets))
duckdb.sql("copy (" + union + " order by proc_time_ms) to '{parquet}' (format parquet)")
"""
    sh([python, "-c", code])


def goals_table(a, work, rounds, sizes, have_duckdb, log_file):
    """The goals table: each row measured with the binary before (--before) and this tree's,
    alternated; the UI's rows from the criterion benchmarks, which run this tree only."""
    before = a.before
    n = 300_000 if a.quick else 3_000_000
    small = 20_000 if a.quick else 200_000
    mem_small, mem_big = (200_000, 2_000_000) if a.quick else (2_000_000, 20_000_000)
    bins = {"before": before, "after": BIN} if before else {"after": BIN}

    def issue_log(ext):
        # The log of the goals: `stream --seed 42`, its Parquet written from it by DuckDB.
        csv = os.path.join(work, f"goal-{n}.csv")
        if not os.path.exists(csv):
            with open(csv, "wb") as o:
                subprocess.run([BIN, "stream", "--seed", "42", "--events", str(n), "--format", "csv"],
                               check=True, stdout=o)
        if ext == "csv":
            return csv
        path = os.path.join(work, f"goal-{n}.parquet")
        if not os.path.exists(path):
            write_parquet(a.duckdb_python, csv, path)
        return path

    def side_by_side(argv):
        """`argv` (after the binary) run by each binary, alternated: name -> (median, peak MB, walls)."""
        return alternated({k: [b] + argv for k, b in bins.items()}, rounds)

    def old_new(got, show):
        return [show(got["before"]) if "before" in got else "–", show(got["after"])]

    rows = ["| goal | measure | before | after | goal |", "|---|---|---:|---:|---:|"]
    formats = ["csv"] + (["parquet"] if have_duckdb else [])
    for k in formats:
        path = issue_log(k)
        log(f"goals: run --input, {k}, {n} rows")
        got = side_by_side(["run", "--input", path])
        d = duckdb_query(a.duckdb_python, path, k) if have_duckdb else None
        name = {"csv": "CSV", "parquet": "Parquet"}[k]
        size = f"{os.path.getsize(path) / 1e6:.0f} MB"
        rows.append(f"| `run --input`, {name} ({count(n)} rows, {size}) | time | "
                    + " | ".join(old_new(got, lambda g: span(g[2]))) + " | |")
        if d:
            goal = f"≤ {'1.0' if k == 'csv' else '1.5'}×"
            rows.append(f"| | against DuckDB's group-by, warm ({span(d)}) | "
                        + " | ".join(old_new(got, lambda g: f"{g[0] / min(d):.2f}×")) + f" | {goal} |")
            first = duckdb_first(a.duckdb_python, path, k, rounds)
            rows.append(f"| | against its first query in a fresh process ({span(first)}) | "
                        + " | ".join(old_new(got, lambda g: f"{g[0] / min(first):.2f}×")) + f" | {goal} |")
    if not have_duckdb:
        rows.append("| `run --input`, Parquet | | not measured (no duckdb) | | ≤ 1.5× |")

    log(f"goals: advise --session 5s against one run, {small} events")
    one = log_file(small, "csv")
    runs = side_by_side(["run", "--input", one, "--session", "5s"])
    advises = side_by_side(["advise", "--input", one, "--session", "5s"])
    rows.append(f"| `advise --session 5s`, {count(small)} events | against one `run --session 5s` | "
                + " | ".join(f"{advises[k][0] / runs[k][0]:.1f}×" if k in advises else "–"
                             for k in ("before", "after")) + " | ≤ 3× |")

    log(f"goals: advise peak memory, {mem_big} events against {mem_small}")
    mems = {}
    for size in (mem_small, mem_big):
        mems[size] = side_by_side(["advise", "--input", log_file(size, "parquet" if have_duckdb else "csv")])
    rows.append(f"| `advise --input` peak memory, {count(mem_big)} events against {count(mem_small)} | "
                f"ratio ({', '.join(f'{k}: {mems[mem_small][k][1]:.0f} → {mems[mem_big][k][1]:.0f} MB' for k in bins)}) | "
                + " | ".join(f"{mems[mem_big][k][1] / mems[mem_small][k][1]:.1f}×" if k in bins else "–"
                             for k in ("before", "after")) + " | ≤ 1.5× |")

    log("goals: job mode at 1M events (criterion, this tree)")
    tui = criterion("tui", a.quick, "tui_1m/job_")
    for bench, what in (("job_dial_change_to_settled_frame", "job dial change to a settled frame"),
                        ("job_watermark_kind_to_settled_frame", "`w` in job mode")):
        found = next((v for k, v in tui.items() if bench in k), "not measured")
        rows.append(f"| {what}, 10^6 events | criterion median (`tui_1m/{bench}_120x40`) | – | {found} | ≤ 100 ms |")

    if (a.advise_1e8 or any(s >= 100_000_000 for s in sizes)) and have_duckdb:
        log("goals: advise over 10^8 events, peak memory (once each)")
        path = log_file(100_000_000, "parquet")
        got = alternated({k: [b, "advise", "--input", path] for k, b in bins.items()}, 1)
        rows.append("| `advise` over 10^8 events | peak memory | "
                    + " | ".join(old_new(got, lambda g: megabytes(g[1]))) + " | flat in the log's size |")
    else:
        rows.append("| `advise` over 10^8 events | peak memory | not measured (`--advise-1e8`, or `--sizes` up to 1e8) | | flat in the log's size |")
    return "\n".join(rows)


def criterion(bench, quick, only=None):
    """The median of every benchmark of `cargo bench --bench <bench>`: name -> text."""
    args = ["cargo", "bench", "--quiet", "--bench", bench, "--", "--noplot"]
    if only:
        args.append(only)
    if quick:
        args += ["--warm-up-time", "0.5", "--measurement-time", "1"]
    out = sh(args, cwd=ROOT)
    found = {}
    name = None
    for line in out.splitlines():
        m = re.match(r"^(\S.*?)\s+time:\s+\[\S+ \S+ (\S+) (\S+) \S+ \S+\]", line)
        if m:
            found[m.group(1).strip()] = f"{m.group(2)} {m.group(3)}"
            continue
        m = re.match(r"^\s+time:\s+\[\S+ \S+ (\S+) (\S+) \S+ \S+\]", line)
        if m and name:
            found[name] = f"{m.group(1)} {m.group(2)}"
            continue
        if line and not line.startswith(" ") and "time:" not in line:
            name = line.strip()
    return found


def criterion_table(found):
    rows = ["| benchmark | median |", "|---|---:|"]
    rows += [f"| `{k}` | {v} |" for k, v in found.items()]
    return "\n".join(rows)


def machine():
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.0f} GiB"
    except OSError:
        pass
    rustc = sh(["rustc", "--version"]).strip()
    commit = sh(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT).strip()
    dirty = sh(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT).strip()
    return (
        f"{os.cpu_count()} cores ({cpu}), {mem}, {platform.system()} {platform.machine()}; "
        f"{rustc}; commit {commit}{' with local changes' if dirty else ''}; "
        f"measured {datetime.date.today().isoformat()}"
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "performance.md"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sizes", default="1e6,1e7")
    ap.add_argument("--duckdb-python", default=os.environ.get("DUCKDB_PYTHON", "/tmp/duck/bin/python"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--work", default=None, help="folder for the generated logs (kept)")
    ap.add_argument("--before", default=None,
                    help="the binary before a change: the goals table measures it beside this tree's")
    ap.add_argument("--before-label", default=None,
                    help="how the page names the binary before, e.g. 'the release build of a7bd743' "
                         "(default: its path)")
    ap.add_argument("--advise-1e8", action="store_true",
                    help="the goals' row of advice over 10^8 events, without the scale table at 10^8")
    a = ap.parse_args()
    rounds = 1 if a.quick else a.rounds
    big = 1_000_000 if a.quick else 10_000_000
    sizes = [int(float(s)) for s in a.sizes.split(",")]
    if a.quick:
        sizes = [s // 10 for s in sizes]

    log("building the release binary")
    sh(["cargo", "build", "--release", "--quiet"], cwd=ROOT)
    # A Python named by its path, or by its name on PATH (python3).
    a.duckdb_python = shutil.which(a.duckdb_python) or a.duckdb_python
    have_duckdb = os.path.exists(a.duckdb_python) and subprocess.run(
        [a.duckdb_python, "-c", "import duckdb"], capture_output=True
    ).returncode == 0
    work = a.work or tempfile.mkdtemp(prefix="twoclocks-measure.")
    os.makedirs(work, exist_ok=True)
    f = Figures()
    f.put("machine", machine())
    f.put("duckdb", sh([a.duckdb_python, "-c", "import duckdb; print(duckdb.__version__)"]).strip()
          if have_duckdb else "not installed")

    def log_file(n, ext):
        path = os.path.join(work, f"{n}.{ext}")
        if os.path.exists(path):
            return path
        if n > GENERATED_MAX:
            # Past what the generator makes at once: parts of GENERATED_MAX events, each
            # generated with its own seed and placed after the one before (both clocks moved
            # on by the earlier part's last processing time), written by DuckDB as one Parquet
            # file in processing-time order.
            if ext != "parquet":
                sys.exit(f"{n} events: only as Parquet (DuckDB joins the generated parts)")
            parts = []
            for i in range(-(-n // GENERATED_MAX)):
                m = min(GENERATED_MAX, n - i * GENERATED_MAX)
                part = os.path.join(work, f"{n}.part{i}.csv")
                if not os.path.exists(part):
                    with open(part, "wb") as o:
                        subprocess.run(
                            [BIN, "stream", "--seed", str(7 + i), "--events", str(m),
                             "--span", f"{m * 6 // 10}s", "--keys", KEYS],
                            check=True, stdout=o)
                parts.append(part)
            join_parquet(a.duckdb_python, parts, path)
            return path
        csv = os.path.join(work, f"{n}.csv")
        if not os.path.exists(csv):
            # The span grows with the events, so that a window holds as many at every size.
            with open(csv, "wb") as o:
                subprocess.run(
                    [BIN, "stream", "--events", str(n), "--span", f"{n * 6 // 10}s", "--keys", KEYS],
                    check=True, stdout=o)
        if ext == "jsonl":
            with open(path, "wb") as o:
                subprocess.run(
                    [BIN, "stream", "--events", str(n), "--span", f"{n * 6 // 10}s", "--keys", KEYS,
                     "--format", "jsonl"], check=True, stdout=o)
        elif ext == "parquet":
            write_parquet(a.duckdb_python, csv, path)
        return path

    # Reading a log, end to end: `run --input`, per format.
    n = big
    f.put("ingest_rows", count(n))
    formats = ["csv", "jsonl"] + (["parquet"] if have_duckdb else [])
    cmds = {k: [BIN, "run", "--input", log_file(n, k)] for k in formats}
    log(f"run --input over {n} rows, per format")
    got = alternated(cmds, rounds)
    for k in ("csv", "jsonl", "parquet"):
        if k in got:
            w, m, walls = got[k]
            size = os.path.getsize(log_file(n, k))
            f.put(f"ingest_{k}_time", span(walls))
            f.put(f"ingest_{k}_rows", rate(n, w))
            f.put(f"ingest_{k}_mbs", f"{size / w / 1e6:.0f}")
            f.put(f"ingest_{k}_size", f"{size / 1e6:.0f} MB")
            f.put(f"ingest_{k}_mem", f"{m:.0f} MB")
        else:
            for s in ("time", "rows", "mbs", "size", "mem"):
                f.put(f"ingest_{k}_{s}", "–")
    for k in ("csv", "parquet"):
        if have_duckdb:
            d = duckdb_query(a.duckdb_python, log_file(n, k), k)
            f.put(f"duckdb_{k}", span(d))
            f.put(f"duckdb_{k}_ratio", f"{got[k][0] / min(d):.1f}×")
        else:
            f.put(f"duckdb_{k}", "not measured (no duckdb)")
            f.put(f"duckdb_{k}_ratio", "–")

    # The frontier beside one run, over the same CSV and in memory from the generator.
    log("frontier against run, fixed windows")
    csv = log_file(n, "csv")
    got = alternated({
        "run": [BIN, "run", "--input", csv],
        "frontier": [BIN, "frontier", "--input", csv] + SWEEP,
    }, rounds)
    f.put("frontier_csv_run", span(got["run"][2]))
    f.put("frontier_csv", span(got["frontier"][2]))
    f.put("frontier_csv_ratio", f"{got['frontier'][0] / got['run'][0]:.2f}×")
    gen = ["--events", str(n), "--span", f"{n * 6 // 10}s", "--keys", KEYS]
    got = alternated({
        "run": [BIN, "run"] + gen,
        "frontier": [BIN, "frontier"] + gen + SWEEP,
    }, rounds)
    f.put("frontier_gen_run", span(got["run"][2]))
    f.put("frontier_gen", span(got["frontier"][2]))
    f.put("frontier_gen_ratio", f"{got['frontier'][0] / got['run'][0]:.2f}×")

    # Sessions: frontier and advise beside one run, 1M events.
    m1 = sizes[0]
    f.put("sessions_rows", count(m1))
    one = log_file(m1, "csv")
    for gap in ("5s", "30s"):
        log(f"sessions, gap {gap}")
        got = alternated({
            "run": [BIN, "run", "--input", one, "--session", gap],
            "frontier": [BIN, "frontier", "--input", one, "--session", gap] + SWEEP,
            "advise": [BIN, "advise", "--input", one, "--session", gap],
        }, rounds)
        g = gap.rstrip("s")
        f.put(f"s{g}_run", span(got["run"][2]))
        for k in ("frontier", "advise"):
            f.put(f"s{g}_{k}", span(got[k][2]))
            f.put(f"s{g}_{k}_ratio", f"{got[k][0] / got['run'][0]:.1f}×")
            f.put(f"s{g}_{k}_mem", f"{got[k][1]:.0f} MB")

    # How cost grows with the log: run, frontier, advise at each size, from Parquet when
    # DuckDB wrote it (the reading then costs least), else from CSV.
    rows = ["| events | input | `run` | `frontier` 25 × 25 | `advise` | peak memory (run / frontier / advise) |",
            "|---:|---|---:|---:|---:|---|"]
    for size in sizes:
        kind = "parquet" if have_duckdb else "csv"
        path = log_file(size, kind)
        log(f"scale: {size} events from {kind}")
        if size > 20_000_000:
            # run and frontier alternated as at every size (a lone round can be an outlier on
            # a shared machine); advise, minutes long at this size, once.
            got = alternated({
                "run": [BIN, "run", "--input", path],
                "frontier": [BIN, "frontier", "--input", path] + SWEEP,
            }, rounds)
            got.update(alternated({"advise": [BIN, "advise", "--input", path]}, 1))
        else:
            got = alternated({
                "run": [BIN, "run", "--input", path],
                "frontier": [BIN, "frontier", "--input", path] + SWEEP,
                "advise": [BIN, "advise", "--input", path],
            }, rounds)
        rows.append(
            f"| {count(size)} | {kind}, {os.path.getsize(path) / 1e6:.0f} MB | "
            f"{secs(got['run'][0])} | {secs(got['frontier'][0])} | {secs(got['advise'][0])} | "
            f"{got['run'][1]:.0f} / {got['frontier'][1]:.0f} / {got['advise'][1]:.0f} MB |")
    f.put("scale_table", "\n".join(rows))

    # The goals, old against new.
    f.put("goals_table", goals_table(a, work, rounds, sizes, have_duckdb, log_file))
    f.put("goals_before", (a.before_label or f"`{a.before}`") if a.before
          else "none given (`--before`): its column is empty")

    # The criterion benchmarks.
    for bench in ("engine", "baseline", "frontier", "io", "pipeline", "tui"):
        log(f"cargo bench --bench {bench}")
        f.put(f"criterion_{bench}", criterion_table(criterion(bench, a.quick)))

    template = open(os.path.join(HERE, "performance.md.in")).read()
    names = set(re.findall(r"\{\{(\w+)\}\}", template))
    missing = names - set(f)
    if missing:
        sys.exit(f"benches/performance.md.in names figures not measured: {sorted(missing)}")
    page = re.sub(r"\{\{(\w+)\}\}", lambda m: str(f[m.group(1)]), template)
    if a.out == "-":
        sys.stdout.write(page)
    else:
        with open(a.out, "w") as o:
            o.write(page)
        log(f"wrote {a.out}")
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
