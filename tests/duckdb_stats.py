"""Runs the DuckDB query `twoclocks advise --sql duckdb` prints, for tests/cli/advise_sql.rs.

  python3 duckdb_stats.py log OUT.parquet N SEED UNIT NULLS ET PT KEY
      writes a log of N events (whole-millisecond times, sorted by processing time, then by
      event time downwards, the order whose bounded watermark the query's equals) with columns
      ET, PT, KEY; UNIT is ms (BIGINT), us (BIGINT microseconds, not
      whole ms) or timestamp (TIMESTAMP); NULLS rows get a NULL key.
  python3 duckdb_stats.py run QUERY.sql LOG.parquet OUT.parquet OUT.csv
      runs the query over the log as the view `events` and saves its result twice.
"""
import random
import sys

import duckdb


def make_log(out, n, seed, unit, nulls, et_col, pt_col, key_col):
    r = random.Random(seed)
    rows = []
    for _ in range(n):
        et = r.randrange(0, 600_000)
        if r.random() < 0.08:
            delay = r.randrange(0, 90_000)
        else:
            delay = int(r.expovariate(1 / 2000))
        rows.append([et, et + delay, "abcd"[r.randrange(4)]])
    rows.sort(key=lambda row: (row[1], -row[0]))
    for row in rows[:nulls]:
        row[2] = None
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    if unit == "ms":
        types = ("BIGINT", "BIGINT")
    elif unit == "us":
        types = ("BIGINT", "BIGINT")
        for row in rows:
            row[0] = row[0] * 1000 + r.randrange(1, 1000)
            row[1] = row[1] * 1000 + r.randrange(1, 1000)
        rows.sort(key=lambda row: (row[1], -row[0]))
    else:
        types = ("TIMESTAMP", "TIMESTAMP")
        base = 1_796_000_000_000  # ms, December 2026
        for row in rows:
            row[0] = (base + row[0]) * 1000
            row[1] = (base + row[1]) * 1000
    q = lambda c: '"' + c.replace('"', '""') + '"'
    con.execute(
        f"CREATE TABLE log ({q(et_col)} BIGINT, {q(pt_col)} BIGINT, {q(key_col)} VARCHAR)"
    )
    con.executemany("INSERT INTO log VALUES (?, ?, ?)", rows)
    if types[0] == "TIMESTAMP":
        select = (
            f"SELECT make_timestamp({q(et_col)}) AS {q(et_col)}, "
            f"make_timestamp({q(pt_col)}) AS {q(pt_col)}, {q(key_col)} FROM log"
        )
    else:
        select = "SELECT * FROM log"
    con.execute(f"COPY ({select}) TO '{out}' (FORMAT parquet)")


def run(query_file, log, out_parquet, out_csv):
    con = duckdb.connect()
    con.execute(f"CREATE VIEW events AS SELECT * FROM read_parquet('{log}')")
    statements = [s for s in open(query_file).read().split(";\n") if s.strip()]
    for s in statements[:-1]:
        con.execute(s)
    result = con.sql(statements[-1].strip().rstrip(";"))
    result.write_parquet(out_parquet)
    result.write_csv(out_csv)


if __name__ == "__main__":
    if sys.argv[1] == "log":
        out, n, seed, unit, nulls, et, pt, key = sys.argv[2:10]
        make_log(out, int(n), int(seed), unit, int(nulls), et, pt, key)
    else:
        run(*sys.argv[2:6])
