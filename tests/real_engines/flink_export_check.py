"""Runs each case of cases.json through `twoclocks export --to flink --source file` (the
DataStream job in Java), compiled and run on a local MiniCluster, and records the panes and
drops it prints (results/flink-export/<case>.json), or with --check compares with the recorded
files.

    python3 tests/real_engines/flink_export_check.py [--check] [CASE ...]

Needs `pip install apache-flink` (see README.md), Java 17 (`java`, `javac`) and a built
twoclocks (target/release or target/debug, or $TWOCLOCKS). For each case the export is run over
the case's log and dials (`--input logs/X.csv --source file --window|--session ... --watermark
bounded:B --grace L`); the Java file it writes, unchanged, is compiled with javac against
PyFlink's bundled jars (lib/*) and run with `java -cp` in this folder (the log's path is
relative to it). Its main reads the log with a FileSource at parallelism 1, its watermark is
max - B - 1 after every row (what the export writes for a file source), and it prints
`pane KEY START END COUNT WATERMARK` per firing and `dropped KEY EVENT_TIME_MS` per element of
the late side output.

A pane's timing is derived as flink_check.py derives it: EARLY if the watermark at the firing
is below the window's maxTimestamp (end - 1), else ON_TIME for a window's first such firing
and LATE after it. Cases with a trigger other than the default are skipped: the export's early
firings are on processing time.
"""

import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

import pyflink  # noqa: E402
from pyflink.version import __version__ as FLINK_VERSION  # noqa: E402


def classpath(classes):
    lib = os.path.join(os.path.dirname(pyflink.__file__), "lib")
    return os.pathsep.join([classes, os.path.join(lib, "*")])


def run_case(case):
    args, code = common.export("flink", case)
    classes = tempfile.mkdtemp(prefix="flink-export-")
    try:
        source = os.path.join(classes, "TwoclocksPolicy.java")
        with open(source, "w") as f:
            f.write(code)
        subprocess.run(["javac", "-d", classes, "-cp", classpath(classes), source], check=True)
        proc = subprocess.run(["java", "-cp", classpath(classes), "TwoclocksPolicy"],
                              cwd=common.HERE, capture_output=True, text=True)
    finally:
        shutil.rmtree(classes, ignore_errors=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise RuntimeError(f"{case['name']}: the exported job failed")
    panes, dropped, on_time_seen = [], [], set()
    for line in proc.stdout.splitlines():
        fields = line.split()
        if fields[:1] == ["pane"]:
            key, start, end, count, watermark = fields[1], *map(int, fields[2:])
            window = (key, start, end)
            if watermark < end - 1:
                timing = "EARLY"
            elif window not in on_time_seen:
                timing = "ON_TIME"
                on_time_seen.add(window)
            else:
                timing = "LATE"
            panes.append({"key": key, "window_start_ms": start, "window_end_ms": end,
                          "timing": timing, "count": count, "watermark_ms": watermark})
        elif fields[:1] == ["dropped"]:
            dropped.append(int(fields[2]))
    return args, panes, dropped


def main():
    args = common.arguments(__doc__.splitlines()[0])
    engine = f"flink {FLINK_VERSION} DataStream export"
    print(engine + " (FileSource, local MiniCluster, parallelism 1)")
    outcomes = []
    for case in common.exportable_cases(args.cases):
        export_args, panes, dropped = run_case(case)
        obj = {"engine": engine, "case": case["name"], "export": ["twoclocks", *export_args],
               "panes": panes, "dropped_event_times_ms": dropped}
        outcomes.append(common.record_or_check("flink-export", case, obj, args.check))
    common.summary(outcomes)


if __name__ == "__main__":
    main()
