"""Runs the `advise --sql flink` query on Apache Flink (PyFlink, batch mode, parallelism 2) for
every case in cases.py, with the filesystem connector's CSV format for the log and the result,
and checks that `advise --stats` on the result equals `advise --input` on the log.

    python3 tests/sql_engines/flink_check.py target/release/twoclocks [WORKDIR]

Needs `pip install apache-flink` and Java 17. Flink's CSV format has no header line: the log is
read as text columns from a headerless copy and typed by a view `events`, and the result's
files get the header `advise --stats` reads. Prints one line per case; exits 1 if any differs.
"""

import glob
import os
import shutil
import sys
import tempfile

from pyflink.table import EnvironmentSettings, TableEnvironment

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
import cases  # noqa: E402

COLUMNS = [
    ("watermark", "STRING"),
    ("window_start_ms", "BIGINT"),
    ("window_end_ms", "BIGINT"),
    ("key", "STRING"),
    ("first_clock_ms", "DOUBLE"),
    ("slack_bin", "BIGINT"),
    ("slack_bin_ms", "BIGINT"),
    ("events", "BIGINT"),
    ("window_size_ms", "BIGINT"),
    ("window_slide_ms", "BIGINT"),
]


def q(name):
    """A name quoted as Flink SQL quotes identifiers."""
    return "`" + name.replace("`", "``") + "`"


def typed(case, col):
    """A text column of the log as the SQL type the case gives it (the session is in UTC);
    None for RFC 3339 text, which Flink does not cast."""
    parsed = f"TO_TIMESTAMP(REPLACE(REPLACE({q(col)}, 'T', ' '), 'Z', ''), 'yyyy-MM-dd HH:mm:ss.SSS')"
    return {
        "BIGINT": f"CAST({q(col)} AS BIGINT)",
        "DOUBLE": f"CAST({q(col)} AS DOUBLE)",
        "TIMESTAMP": parsed,
        "TIMESTAMP_LTZ": f"CAST({parsed} AS TIMESTAMP_LTZ(3))",
        "STRING": None,
    }[case.time_type()]


def headerless(log, path):
    """A copy of a CSV log without its header line, as Flink's CSV format reads it."""
    with open(log) as src, open(path, "w") as dst:
        next(src)
        shutil.copyfileobj(src, dst)


def main():
    twoclocks = os.path.abspath(sys.argv[1])
    work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="flink-check-")
    os.makedirs(work, exist_ok=True)
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    conf = t_env.get_config()
    conf.set("parallelism.default", "2")
    conf.set("table.local-time-zone", "UTC")
    from pyflink.version import __version__

    print(f"Flink {__version__}")
    failed = skipped = 0
    for case in cases.CASES:
        if typed(case, case.cols[0]) is None:
            print(f"skip {case.name}: Flink does not cast RFC 3339 text to a timestamp")
            skipped += 1
            continue
        log = os.path.join(work, f"{case.name}.csv")
        cases.write_log(case, log)
        source = os.path.join(work, f"{case.name}.flink-source")
        os.makedirs(source, exist_ok=True)
        headerless(log, os.path.join(source, "log.csv"))
        et, pt, key = case.cols
        t_env.execute_sql("DROP TEMPORARY VIEW IF EXISTS events")
        t_env.execute_sql("DROP TEMPORARY TABLE IF EXISTS log_text")
        t_env.execute_sql("DROP TEMPORARY TABLE IF EXISTS slack_stats")
        t_env.execute_sql(
            f"CREATE TEMPORARY TABLE log_text ({q(et)} STRING, {q(pt)} STRING, {q(key)} STRING) "
            f"WITH ('connector' = 'filesystem', 'path' = '{source}', 'format' = 'csv')"
        )
        t_env.execute_sql(
            f"CREATE TEMPORARY VIEW events AS SELECT {typed(case, et)} AS {q(et)}, "
            f"{typed(case, pt)} AS {q(pt)}, NULLIF({q(key)}, '') AS {q(key)} FROM log_text"
        )
        out = os.path.join(work, f"{case.name}.flink-result")
        shutil.rmtree(out, ignore_errors=True)
        columns = ", ".join(f"{q(c)} {t}" for c, t in COLUMNS)
        t_env.execute_sql(
            f"CREATE TEMPORARY TABLE slack_stats ({columns}) "
            f"WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'csv')"
        )
        sql = cases.query(twoclocks, "flink", case)
        with open(os.path.join(work, f"{case.name}.flink.sql"), "w") as f:
            f.write(sql)
        # The SQL client takes the statement with its `;`; the Table API without it.
        select = sql.rstrip().removesuffix(";")
        try:
            t_env.sql_query(select).execute_insert("slack_stats").wait()
        except Exception as e:  # the query does not parse, resolve or run: show why, go on
            print(f"FAIL {case.name}: the query failed: {str(e)[:3000]}")
            failed += 1
            continue
        stats = os.path.join(work, f"{case.name}.stats.csv")
        with open(stats, "w") as dst:
            dst.write(",".join(c for c, _ in COLUMNS) + "\n")
            for part in sorted(glob.glob(os.path.join(out, "**", "part-*"), recursive=True)):
                with open(part) as src:
                    shutil.copyfileobj(src, dst)
        try:
            ok, summary = cases.compare(twoclocks, case, log, stats)
        except RuntimeError as e:
            ok, summary = False, str(e)
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {case.name}: {summary}")
    passed = len(cases.CASES) - failed - skipped
    print(f"{passed} passed, {failed} failed, {skipped} skipped (files in {work})")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
