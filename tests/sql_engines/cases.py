"""The logs and flag sets both engine checks run, and the comparison they make.

Each case writes an event log as CSV (sorted by processing time, then event time downwards:
the query gives rows of equal processing time the largest event time among them, which is what
that file order gives them), asks `twoclocks advise --sql ENGINE`
for the query, lets the engine run it over the log as the table `events`, and compares
`twoclocks advise --stats RESULT` with `twoclocks advise --input LOG` (JSON equal but for the
`events` field: the log's row count, which the statistics do not hold).
Only the standard library is used here.
"""

import csv
import datetime
import json
import os
import random
import subprocess

# 2026-12-04T08:00:00Z in ms: RFC 3339 logs start here.
RFC3339_BASE_MS = 1_796_371_200_000


class Case:
    """One log and the flags it is checked with."""

    def __init__(self, name, flags=(), cols=("event_time_ms", "proc_time_ms", "key"),
                 time_format="ms", time_type=None, null_keys=0, seed=11, n=20000):
        self.name = name
        self._time_type = time_type
        self.flags = list(flags)
        self.cols = cols
        self.time_format = time_format
        self.null_keys = null_keys
        self.seed = seed
        self.n = n

    def column_flags(self):
        et, pt, key = self.cols
        return ["--event-time-col", et, "--proc-time-col", pt, "--key-col", key,
                "--time-format", self.time_format]

    def time_type(self):
        """The SQL type the time columns are given: BIGINT ms, DOUBLE s, TIMESTAMP (without a
        zone, its wall clock in UTC), TIMESTAMP_LTZ (an instant) or STRING (RFC 3339 text)."""
        return self._time_type or {"ms": "BIGINT", "s": "DOUBLE"}[self.time_format]


CASES = [
    Case("tumbling-60s"),
    Case("sliding-7s-3s", flags=["--window", "7s", "--slide", "3s", "--max-delay", "48s"]),
    Case("spaced-names", flags=["--window", "10s", "--max-delay", "24s"],
         cols=("event time", "proc time", "user `key`"), seed=12),
    Case("seconds", flags=["--window", "30s", "--slide", "10s"], time_format="s", seed=13),
    Case("rfc3339-timestamp", time_format="rfc3339", time_type="TIMESTAMP", seed=14),
    Case("rfc3339-ltz", flags=["--window", "20s"], time_format="rfc3339",
         time_type="TIMESTAMP_LTZ", seed=16),
    Case("rfc3339-text", flags=["--window", "15s", "--slide", "5s"], time_format="rfc3339",
         time_type="STRING", seed=17),
    Case("null-keys", null_keys=37, seed=15),
]


def events(case):
    """The log's rows (event time ms, processing time ms, key or None), in processing order."""
    r = random.Random(case.seed)
    rows = []
    for _ in range(case.n):
        et = r.randrange(0, 600_000)
        d = int(r.expovariate(1 / 2000)) if r.random() > 0.08 else r.randrange(0, 90_000)
        rows.append((et, et + d, "abcd"[r.randrange(4)]))
    for i in r.sample(range(case.n), case.null_keys):
        rows[i] = (rows[i][0], rows[i][1], None)
    rows.sort(key=lambda row: (row[1], -row[0]))
    return rows


def shown_time(case, ms):
    """A time in ms as the case's log writes it."""
    if case.time_format == "ms":
        return str(ms)
    if case.time_format == "s":
        return f"{ms / 1000:.3f}"
    t = datetime.datetime.fromtimestamp((RFC3339_BASE_MS + ms) / 1000, datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def write_log(case, path):
    """Writes the case's log as CSV with a header; a NULL key is an empty field."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(case.cols)
        for et, pt, key in events(case):
            w.writerow([shown_time(case, et), shown_time(case, pt), key or ""])


def run(cmd):
    """Runs a command, returning its standard output; fails loudly with its error output."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr}")
    return p.stdout, p.stderr


def query(twoclocks, engine, case):
    """The query `advise --sql ENGINE` prints for the case."""
    out, _ = run([twoclocks, "advise", "--sql", engine, *case.flags, *case.column_flags()])
    return out


def without_events(value):
    """A JSON value with every `events` field dropped."""
    if isinstance(value, dict):
        return {k: without_events(v) for k, v in value.items() if k != "events"}
    if isinstance(value, list):
        return [without_events(v) for v in value]
    return value


def compare(twoclocks, case, log, stats):
    """Whether advice from the statistics equals advice from the log; and a short summary."""
    common = ["--watermarks", "fixed,bounded", "--format", "json", *case.flags]
    # The log's rows with an empty key are skipped, as the query leaves out NULL keys.
    skip = ["--on-bad-row", "skip"] if case.null_keys else []
    from_log, _ = run([twoclocks, "advise", "--input", log, *common, *case.column_flags(), *skip])
    from_stats, notes = run([twoclocks, "advise", "--stats", stats, *common])
    a = without_events(json.loads(from_log))
    b = without_events(json.loads(from_stats))
    summary = f"{os.path.getsize(stats)} B of statistics"
    if notes.strip():
        summary += f"; note: {notes.strip()}"
    if a == b:
        return True, summary
    diff = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    return False, f"{summary}; fields that differ: {diff}"
