"""Runs the `advise --sql spark` query on Apache Spark (local[2]) for every case in cases.py,
saves its result as CSV (one file, with a header) and as Parquet, and checks that
`advise --stats` on each equals `advise --input` on the log.

    python3 tests/sql_engines/spark_check.py target/release/twoclocks [WORKDIR]

Needs `pip install pyspark` and Java 17. Prints one line per case and result format; exits 1
if any differs.
"""

import glob
import os
import shutil
import sys
import tempfile

from pyspark.sql import SparkSession
from pyspark.sql.types import StringType, StructField, StructType

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
import cases  # noqa: E402


def q(name):
    """A name quoted as Spark SQL quotes identifiers."""
    return "`" + name.replace("`", "``") + "`"


def typed(case, col):
    """A text column of the log as the SQL type the case gives it (the session is in UTC)."""
    return {
        "BIGINT": f"CAST({q(col)} AS BIGINT)",
        "DOUBLE": f"CAST({q(col)} AS DOUBLE)",
        "TIMESTAMP": f"CAST(CAST({q(col)} AS TIMESTAMP) AS TIMESTAMP_NTZ)",
        "TIMESTAMP_LTZ": f"CAST({q(col)} AS TIMESTAMP)",
        "STRING": q(col),
    }[case.time_type()]


def single_file(directory, ext):
    """The one part file Spark wrote into a directory."""
    parts = glob.glob(os.path.join(directory, f"part-*.{ext}"))
    if len(parts) != 1:
        raise RuntimeError(f"{directory}: expected one part file, found {parts}")
    return parts[0]


def main():
    twoclocks = os.path.abspath(sys.argv[1])
    work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="spark-check-")
    os.makedirs(work, exist_ok=True)
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("twoclocks slack statistics")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    print(f"Spark {spark.version}")
    failed = 0
    for case in cases.CASES:
        log = os.path.join(work, f"{case.name}.csv")
        cases.write_log(case, log)
        sql = cases.query(twoclocks, "spark", case)
        with open(os.path.join(work, f"{case.name}.spark.sql"), "w") as f:
            f.write(sql)
        et, pt, key = case.cols
        text = StructType([StructField(c, StringType()) for c in case.cols])
        spark.read.csv(log, header=True, schema=text).createOrReplaceTempView("log_text")
        spark.sql(
            f"CREATE OR REPLACE TEMPORARY VIEW events AS SELECT {typed(case, et)} AS {q(et)}, "
            f"{typed(case, pt)} AS {q(pt)}, NULLIF({q(key)}, '') AS {q(key)} FROM log_text"
        )
        try:
            result = spark.sql(sql)
        except Exception as e:  # the query does not parse or resolve: show why, go on
            print(f"FAIL {case.name}: the query failed: {str(e)[:2000]}")
            failed += 2
            continue
        out = os.path.join(work, f"{case.name}.spark")
        result.coalesce(1).write.csv(out + "-csv", header=True, mode="overwrite")
        result.coalesce(1).write.parquet(out + "-parquet", mode="overwrite")
        for ext, directory in (("csv", out + "-csv"), ("parquet", out + "-parquet")):
            stats = os.path.join(work, f"{case.name}.stats.{ext}")
            shutil.copy(single_file(directory, ext), stats)
            try:
                ok, summary = cases.compare(twoclocks, case, log, stats)
            except RuntimeError as e:
                ok, summary = False, str(e)
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {case.name} ({ext}): {summary}")
    spark.stop()
    print(f"{len(cases.CASES) * 2 - failed} passed, {failed} failed (files in {work})")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
