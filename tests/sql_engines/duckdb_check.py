"""Runs the `advise --sql duckdb` query on DuckDB for every case in cases.py, saves its result
as CSV (with a header) and as Parquet, and checks that `advise --stats` on each equals
`advise --input` on the log.

    python3 tests/sql_engines/duckdb_check.py target/release/twoclocks [WORKDIR]

Needs `pip install duckdb`. Prints one line per case and result format; exits 1 if any differs.
"""

import os
import sys
import tempfile

import duckdb

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
import cases  # noqa: E402


def q(name):
    """A name quoted as DuckDB quotes identifiers."""
    return '"' + name.replace('"', '""') + '"'


def typed(case, col):
    """A text column of the log as the SQL type the case gives it (the session is in UTC)."""
    return {
        "BIGINT": f"CAST({q(col)} AS BIGINT)",
        "DOUBLE": f"CAST({q(col)} AS DOUBLE)",
        "TIMESTAMP": f"CAST(CAST({q(col)} AS TIMESTAMPTZ) AS TIMESTAMP)",
        "TIMESTAMP_LTZ": f"CAST({q(col)} AS TIMESTAMPTZ)",
        "STRING": q(col),
    }[case.time_type()]


def main():
    twoclocks = os.path.abspath(sys.argv[1])
    work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="duckdb-check-")
    os.makedirs(work, exist_ok=True)
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    print(f"DuckDB {duckdb.__version__}")
    failed = 0
    for case in cases.CASES:
        log = os.path.join(work, f"{case.name}.csv")
        cases.write_log(case, log)
        et, pt, key = case.cols
        con.execute(
            f"CREATE OR REPLACE VIEW events AS SELECT {typed(case, et)} AS {q(et)}, "
            f"{typed(case, pt)} AS {q(pt)}, NULLIF({q(key)}, '') AS {q(key)} "
            f"FROM read_csv('{log}', header = true, all_varchar = true)"
        )
        sql = cases.query(twoclocks, "duckdb", case)
        with open(os.path.join(work, f"{case.name}.duckdb.sql"), "w") as f:
            f.write(sql)
        select = sql.rstrip().removesuffix(";")
        for ext, options in (("csv", "HEADER"), ("parquet", "FORMAT parquet")):
            stats = os.path.join(work, f"{case.name}.stats.{ext}")
            try:
                con.execute(f"COPY ({select}) TO '{stats}' ({options})")
                ok, summary = cases.compare(twoclocks, case, log, stats)
            except (duckdb.Error, RuntimeError) as e:
                ok, summary = False, str(e)[:2000]
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {case.name} ({ext}): {summary}")
    print(f"{len(cases.CASES) * 2 - failed} passed, {failed} failed (files in {work})")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
