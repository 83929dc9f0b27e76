"""Runs each log of cases.json through Apache Flink's DataStream windowing and records what it
emits (results/flink/<case>.json), or with --check compares with the recorded files.

    python3 tests/real_engines/flink_check.py [--check] [CASE ...]

Needs `pip install apache-flink` (in a virtual environment: see README.md) and Java 17
(`java`, `javac`). The work is done by flink/FlinkWindows.java, compiled here with javac
against the jars bundled in the pyflink package (lib/) and run with `java -cp` once per case:
a local MiniCluster at parallelism 1, the log's rows in file order, a watermark of
max_seen - B - 1 emitted after every event (see the Java file for why not periodically),
event-time tumbling, sliding or session windows, allowedLateness(L), the late side output for the
dropped elements, and a ProcessWindowFunction that prints each firing with
ctx.currentWatermark().

Flink has no PaneInfo. A firing's timing is derived from the watermark it saw and the window's
maxTimestamp (end - 1), per window (key, start, end) in emission order:
EARLY if watermark < maxTimestamp; else ON_TIME for the first such firing of that window and
LATE for the ones after it. A session window that grows by a merge is a new window (like Beam
Python, which starts pane indices afresh after a merge). The pane's timestamp_ms is
maxTimestamp, the timestamp Flink gives a window's output; watermark_ms is the raw watermark
(9223372036854775807 is the end-of-input watermark).
"""

import json
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

JAVA_SOURCE = os.path.join(common.HERE, "flink", "FlinkWindows.java")
PREFIX = "TWOCLOCKS "


def classpath(classes):
    lib = os.path.join(os.path.dirname(pyflink.__file__), "lib")
    return os.pathsep.join([classes, os.path.join(lib, "*")])


def compile_java(classes):
    subprocess.run(["javac", "-d", classes, "-cp", classpath(classes), JAVA_SOURCE], check=True)


def run_case(classes, case):
    kind, size = common.window_spec(case)
    size = f"{size[0]}:{size[1]}" if kind == "sliding" else str(size)
    args = [os.path.join(common.HERE, case["log"]), kind, size,
            str(case["bounded_out_of_orderness_ms"]), str(case["allowed_lateness_ms"]),
            case["trigger"]]
    proc = subprocess.run(["java", "-cp", classpath(classes), "FlinkWindows", *args],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise RuntimeError(f"{case['name']}: the Flink job failed")
    return [json.loads(line[len(PREFIX):]) for line in proc.stdout.splitlines()
            if line.startswith(PREFIX)]


def panes_of(lines, events):
    """The firings as panes (timing derived as the module's doc says), and the dropped rows as
    the side output gave them."""
    panes = []
    on_time_seen = set()
    side_output = []
    for line in lines:
        if line["kind"] == "dropped":
            side_output.append(line["event_ms"])
            continue
        window = (line["key"], line["start"], line["end"])
        if line["watermark"] < line["max_ts"]:
            timing = "EARLY"
        elif window not in on_time_seen:
            timing = "ON_TIME"
            on_time_seen.add(window)
        else:
            timing = "LATE"
        values = sorted(tuple(v) for v in line["events"])
        panes.append({
            "key": line["key"],
            "window_start_ms": line["start"],
            "window_end_ms": line["end"],
            "timing": timing,
            "timestamp_ms": line["max_ts"],
            "watermark_ms": line["watermark"],
            "event_times_ms": [v[0] for v in values],
            "proc_times_ms": [v[1] for v in values],
        })
    return panes, side_output


def main():
    args = common.arguments(__doc__.splitlines()[0])
    engine = f"flink {FLINK_VERSION}"
    print(engine + " (DataStream API, local MiniCluster, parallelism 1)")
    classes = tempfile.mkdtemp(prefix="flink-windows-")
    try:
        compile_java(classes)
        outcomes = []
        for case in common.load_cases(args.cases):
            events = common.read_log(case)
            panes, side_output = panes_of(run_case(classes, case), events)
            obj = common.result(engine, case, panes, events)
            # Rows in no firing are exactly those the late side output got.
            assert sorted(side_output) == sorted(obj["dropped_event_times_ms"]), (side_output, obj)
            outcomes.append(common.record_or_check("flink", case, obj, args.check))
    finally:
        shutil.rmtree(classes, ignore_errors=True)
    common.summary(outcomes)


if __name__ == "__main__":
    main()
