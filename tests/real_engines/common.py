"""What beam_check.py and flink_check.py share: reading cases.json and the logs, the result
files' layout (results/<engine>/<case>.json), and writing or checking them.

Only the standard library is used here, so both engines' Python environments can import it.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


class Event:
    """One row of a log: its event time, its processing time (unique within a log, so it names
    the row) and its key."""

    def __init__(self, event_time_ms, proc_time_ms, key):
        self.event_time_ms = event_time_ms
        self.proc_time_ms = proc_time_ms
        self.key = key


def load_cases(only=None):
    """The cases of cases.json (those named in `only`, if given), in file order."""
    with open(os.path.join(HERE, "cases.json")) as f:
        cases = json.load(f)["cases"]
    if only:
        unknown = set(only) - {c["name"] for c in cases}
        if unknown:
            sys.exit(f"no such case: {', '.join(sorted(unknown))}")
        cases = [c for c in cases if c["name"] in only]
    return cases


def read_log(case):
    """The case's log as Events, in file (processing-time) order."""
    events = []
    with open(os.path.join(HERE, case["log"])) as f:
        header = f.readline().strip()
        assert header == "event_time_ms,proc_time_ms,key", header
        for line in f:
            if line.strip():
                et, pt, key = line.strip().split(",")
                events.append(Event(int(et), int(pt), key))
    procs = [e.proc_time_ms for e in events]
    assert procs == sorted(procs) and len(set(procs)) == len(procs), "proc times must rise"
    return events


def window_spec(case):
    """('fixed' | 'session', size or gap in ms), or ('sliding', (size, slide) in ms)."""
    kind, *ms = case["window"].split(":")
    if kind == "sliding":
        size, slide = ms
        return kind, (int(size), int(slide))
    assert kind in ("fixed", "session") and len(ms) == 1, case["window"]
    return kind, int(ms[0])


def trigger_spec(case):
    """('default', None) or ('early_count', N)."""
    if case["trigger"] == "default":
        return "default", None
    kind, n = case["trigger"].split(":")
    assert kind == "early_count", kind
    return kind, int(n)


def dropped(events, panes):
    """Event times of the rows that are in no pane (rows are named by their processing time),
    in log order."""
    seen = {p for pane in panes for p in pane["proc_times_ms"]}
    return [e.event_time_ms for e in events if e.proc_time_ms not in seen]


def result(engine, case, panes, events, **extra):
    out = {"engine": engine, "case": case["name"], "panes": panes}
    out["dropped_event_times_ms"] = dropped(events, panes)
    seen = {p for pane in panes for p in pane["proc_times_ms"]}
    out["dropped_proc_times_ms"] = [e.proc_time_ms for e in events if e.proc_time_ms not in seen]
    out.update(extra)
    return out


def result_path(engine_dir, case):
    return os.path.join(HERE, "results", engine_dir, case["name"] + ".json")


def dump(obj):
    """JSON with one pane (or row) per line: diffs of the recorded files stay readable."""
    lines = ["{"]
    items = list(obj.items())
    for i, (k, v) in enumerate(items):
        comma = "," if i + 1 < len(items) else ""
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            lines.append(f'  {json.dumps(k)}: [')
            for j, pane in enumerate(v):
                lines.append("    " + json.dumps(pane) + ("," if j + 1 < len(v) else ""))
            lines.append("  ]" + comma)
        else:
            lines.append(f"  {json.dumps(k)}: {json.dumps(v)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def arguments(description):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true",
                        help="compare with the recorded results/ instead of rewriting them")
    parser.add_argument("cases", nargs="*", help="case names (default: all)")
    return parser.parse_args()


def record_or_check(engine_dir, case, obj, check):
    """Writes the result file, or with --check compares it (all but the version string in
    "engine"); returns True if equal (or written)."""
    path = result_path(engine_dir, case)
    if not check:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(dump(obj))
        print(f"wrote {os.path.relpath(path, HERE)}")
        return True
    try:
        with open(path) as f:
            recorded = json.load(f)
    except FileNotFoundError:
        print(f"FAIL {case['name']}: nothing recorded at {os.path.relpath(path, HERE)}")
        return False
    got = json.loads(json.dumps(obj))
    if recorded["engine"] != got["engine"]:
        print(f"note {case['name']}: recorded with {recorded['engine']}, now {got['engine']}")
    recorded.pop("engine")
    got.pop("engine")
    if recorded == got:
        print(f"ok   {case['name']}")
        return True
    print(f"FAIL {case['name']}: differs from {os.path.relpath(path, HERE)}; now:")
    print(dump(obj))
    return False


def summary(results):
    passed = sum(results)
    failed = len(results) - passed
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


def twoclocks():
    """The twoclocks binary the export scripts run: $TWOCLOCKS, else the newer of the
    workspace's release and debug builds."""
    if os.environ.get("TWOCLOCKS"):
        return os.environ["TWOCLOCKS"]
    root = os.path.dirname(os.path.dirname(HERE))
    built = [os.path.join(root, "target", profile, "twoclocks") for profile in ("release", "debug")]
    built = [p for p in built if os.path.exists(p)]
    if not built:
        sys.exit("no twoclocks binary: run `cargo build` or set TWOCLOCKS")
    return max(built, key=os.path.getmtime)


def dials(case):
    """The case's windowing as twoclocks' flags (run and export take the same ones)."""
    kind, ms = window_spec(case)
    if kind == "sliding":
        window = ["--window", f"{ms[0]}ms", "--slide", f"{ms[1]}ms"]
    else:
        window = [("--window" if kind == "fixed" else "--session"), f"{ms}ms"]
    return [*window,
            "--watermark", f"bounded:{case['bounded_out_of_orderness_ms']}ms",
            "--grace", f"{case['allowed_lateness_ms']}ms"]


def export(target, case, *extra):
    """`twoclocks export --to TARGET` for the case's log and dials, reading the log as a file:
    the arguments (with the log's path relative to this folder, as recorded) and the code."""
    import subprocess
    args = ["export", "--to", target, "--input", case["log"], "--source", "file",
            *dials(case), *extra]
    proc = subprocess.run([twoclocks(), *args], cwd=HERE, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"twoclocks {' '.join(args)}: {proc.stderr}")
    return args, proc.stdout


def windows_per_row(case):
    """How many windows a row falls in: size / slide for sliding windows, else one."""
    kind, ms = window_spec(case)
    return max(1, ms[0] // ms[1]) if kind == "sliding" else 1


def dropped_count(case, events, panes):
    """How many times a row was dropped from a window, for panes that carry a count and
    accumulate: the log's rows times the windows each falls in, less the count each window
    ended with, over the windows no later window of the same key contains (a session merged
    into a bigger one is counted in that one). `twoclocks run` lists as many dropped events."""
    last = {}
    for p in panes:
        last[(p["key"], p["window_start_ms"], p["window_end_ms"])] = p["count"]
    kept = sum(count for (key, start, end), count in last.items()
               if not any(k == key and s <= start and end <= e and (s, e) != (start, end)
                          for (k, s, e) in last))
    return len(events) * windows_per_row(case) - kept


def exportable_cases(names=None):
    """The cases an export can be written for (load_cases' in file order), saying which are
    skipped: twoclocks' dials have no counting trigger, so a case with one is not exported."""
    for case in load_cases(names):
        if case["trigger"] != "default":
            print(f"skip {case['name']}: its trigger ({case['trigger']}) cannot be exported")
            continue
        yield case
