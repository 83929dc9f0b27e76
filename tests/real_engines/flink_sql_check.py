"""Runs each case of cases.json through `twoclocks export --to flink-sql --source file` and
PyFlink's TableEnvironment, and records the rows the exported query emits
(results/flink-sql/<case>.json), or with --check compares with the recorded files.

    python3 tests/real_engines/flink_sql_check.py [--check] [CASE ...]

Needs `pip install apache-flink` (see README.md), Java 17, and a built twoclocks
(target/release or target/debug, or $TWOCLOCKS). For each case the export is run over the
case's log and dials (`--input logs/X.csv --source file --window|--session ... --watermark
bounded:B --grace L`); its statements are run as Flink's SQL client would run them: a
`SET 'k' = 'v';` sets the table config (TableEnvironment.execute_sql takes no SET), every other
statement goes to execute_sql, and the last one, the query, is collected as a changelog. The
session runs in streaming mode at parallelism 1 in UTC, the log's path made absolute; nothing
else is changed.

A row is +I (a window's first result), -U/+U (an update: the previous count retracted, the new
one), with key, window_start_ms, window_end_ms and the count. `panes` are the rows that carry a
count (+I, +U) in emission order, ON_TIME for a window's first and LATE for the later ones
(the query's updates come only from late-fire: no case has early firings), and
`dropped_count` is how many times a row was dropped from a window (common.dropped_count: the
rows times the windows each falls in, less the windows' last counts; the query counts, so which
rows were dropped is not seen, only how many). Cases with a trigger other than the
default are skipped: the export's early firings are on processing time.
"""

import calendar
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

from pyflink.table import EnvironmentSettings, TableEnvironment  # noqa: E402
from pyflink.version import __version__ as FLINK_VERSION  # noqa: E402


def statements(code):
    """The export's statements, comments dropped, in order."""
    text = "\n".join(line for line in code.splitlines() if not line.strip().startswith("--"))
    return [s.strip() for s in text.split(";") if s.strip()]


def ms(t):
    return calendar.timegm(t.utctimetuple()) * 1000 + t.microsecond // 1000


def run_case(case):
    args, code = common.export("flink-sql", case)
    env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    config = env.get_config()
    config.set("parallelism.default", "1")
    config.set("table.local-time-zone", "UTC")
    log = os.path.join(common.HERE, case["log"])
    stmts = statements(code.replace(f"'{case['log']}'", f"'{log}'"))
    *setup, query = stmts
    for stmt in setup:
        if stmt.upper().startswith("SET "):
            k, v = stmt[4:].split("=", 1)
            config.set(k.strip().strip("'"), v.strip().strip("'"))
        else:
            env.execute_sql(stmt).wait()
    rows = []
    with env.execute_sql(query).collect() as results:
        for r in results:
            rows.append({"kind": str(r.get_row_kind()), "key": r[0], "window_start_ms": ms(r[1]),
                         "window_end_ms": ms(r[2]), "count": r[3]})
    return args, rows


def panes_of(rows):
    panes, seen = [], set()
    for r in rows:
        if r["kind"] not in ("+I", "+U"):
            continue
        window = (r["key"], r["window_start_ms"], r["window_end_ms"])
        panes.append({"key": r["key"], "window_start_ms": r["window_start_ms"],
                      "window_end_ms": r["window_end_ms"],
                      "timing": "LATE" if window in seen else "ON_TIME", "count": r["count"]})
        seen.add(window)
    return panes


def main():
    args = common.arguments(__doc__.splitlines()[0])
    engine = f"flink {FLINK_VERSION} SQL"
    print(engine + " (TableEnvironment, streaming, local, parallelism 1)")
    outcomes = []
    for case in common.exportable_cases(args.cases):
        events = common.read_log(case)
        export_args, rows = run_case(case)
        panes = panes_of(rows)
        obj = {"engine": engine, "case": case["name"], "export": ["twoclocks", *export_args],
               "rows": rows, "panes": panes, "dropped_count": common.dropped_count(case, events, panes)}
        outcomes.append(common.record_or_check("flink-sql", case, obj, args.check))
    common.summary(outcomes)


if __name__ == "__main__":
    main()
