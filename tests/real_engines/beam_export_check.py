"""Runs each case of cases.json through `twoclocks export --to beam-python --source file` on
Beam's DirectRunner and records the panes it prints (results/beam-python-export/<case>.json),
or with --check compares with the recorded files.

    python3 tests/real_engines/beam_export_check.py [--check] [CASE ...]

Needs `pip install apache-beam` (see README.md) and a built twoclocks (target/release or
target/debug, or $TWOCLOCKS). For each case the export is run over the case's log and dials
(`--input logs/X.csv --source file --window|--session ... --watermark bounded:B --grace L`);
the Python it writes, unchanged, is run with this interpreter in this folder (the log's path is
relative to it). Its main replays the log through a TestStream (each row in file order, the
watermark moved to max - B when that rises, then to infinity) on the DirectRunner in
streaming mode, through the exported WindowInto and a count per key, and prints each pane with
its PaneInfo. `dropped_count` is how many times a row was dropped from a window (common.dropped_count;
the panes accumulate in every case run here). Cases with a trigger other than the default are skipped:
the export's early firings are on processing time.
"""

import os
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

import apache_beam as beam  # noqa: E402


def run_case(case):
    args, code = common.export("beam-python", case)
    proc = subprocess.run([sys.executable, "-c", code], cwd=common.HERE, capture_output=True,
                          text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise RuntimeError(f"{case['name']}: the exported pipeline failed")
    panes = []
    for line in proc.stdout.splitlines():
        fields = line.split()
        if fields[:1] != ["pane"]:
            continue
        key, start, end, timing, index, nonspec, first, last, count = fields[1:]
        panes.append({"key": key, "window_start_ms": int(start), "window_end_ms": int(end),
                      "timing": timing, "index": int(index), "nonspeculative_index": int(nonspec),
                      "is_first": first == "True", "is_last": last == "True",
                      "count": int(count)})
    return args, panes


def main():
    args = common.arguments(__doc__.splitlines()[0])
    engine = f"beam-python {beam.__version__} export"
    print(engine + " (TestStream, DirectRunner, streaming)")
    outcomes = []
    for case in common.exportable_cases(args.cases):
        events = common.read_log(case)
        export_args, panes = run_case(case)
        obj = {"engine": engine, "case": case["name"], "export": ["twoclocks", *export_args],
               "panes": panes, "dropped_count": common.dropped_count(case, events, panes)}
        outcomes.append(common.record_or_check("beam-python-export", case, obj, args.check))
    common.summary(outcomes)


if __name__ == "__main__":
    main()
