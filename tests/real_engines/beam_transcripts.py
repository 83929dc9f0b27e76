"""Runs Beam's own trigger transcripts (apache_beam/testing/data/trigger_transcripts.yaml, from
the installed package) through Beam's own test (apache_beam/transforms/trigger_test.py, the
four *TranscriptTest classes) and records which of the documents pass on which route, in
results/beam-python-transcripts.json and as a table on stdout.

    python3 tests/real_engines/beam_transcripts.py [--check]

Two runs of pytest: as shipped (a document whose `broken_on` names the DirectRunner is skipped
on the TestStream routes), and again with every `broken_on` ignored, to see what those
documents really do there. The four routes: TriggerDriverTranscriptTest (GeneralTriggerDriver
driven directly), TestStreamTranscriptTest and WeakTestStreamTranscriptTest (a TestStream on
the DirectRunner, outputs compared in order / in any order), BatchTranscriptTest (the batch
runner, where only some documents make sense).

This file is also the pytest plugin (-p beam_transcripts) of the second run: it drops
`broken_on` from each document as trigger_test.py reads the YAML.
"""

import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
RESULT = os.path.join(HERE, "results", "beam-python-transcripts.json")
ROUTES = ["TriggerDriverTranscriptTest", "TestStreamTranscriptTest",
          "WeakTestStreamTranscriptTest", "BatchTranscriptTest"]


def pytest_configure(config):
    """Plugin hook (second run only): documents lose their broken_on as they are loaded."""
    import yaml

    load_all = yaml.load_all

    def without_broken_on(*args, **kwargs):
        for doc in load_all(*args, **kwargs):
            if isinstance(doc, dict):
                doc.pop("broken_on", None)
            yield doc

    yaml.load_all = without_broken_on


def run_pytest(test_file, ignore_broken_on):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.xml")
        cmd = [sys.executable, "-m", "pytest", test_file, "-k", "Transcript", "-q",
               "-p", "no:cacheprovider", f"--junitxml={report}"]
        env = dict(os.environ)
        if ignore_broken_on:
            cmd += ["-p", "beam_transcripts"]
            env["PYTHONPATH"] = HERE + os.pathsep + env.get("PYTHONPATH", "")
        subprocess.run(cmd, env=env, cwd=tmp, stdout=subprocess.DEVNULL, timeout=1800)
        outcomes = {}
        for case in ET.parse(report).getroot().iter("testcase"):
            route = case.get("classname").rsplit(".", 1)[-1]
            name = case.get("name").removeprefix("test_")
            outcome = "passed"
            for child in case:
                if child.tag == "skipped":
                    outcome = "skipped: " + (child.get("message") or "").split(": ", 1)[-1]
                elif child.tag in ("failure", "error"):
                    outcome = "failed: " + (child.get("message") or "").splitlines()[0][:160]
            outcomes.setdefault(name, {})[route] = outcome
        return outcomes


def counts(outcomes):
    out = {}
    for route in ROUTES:
        got = [docs.get(route, "absent").split(":")[0] for docs in outcomes.values()]
        out[route] = {k: got.count(k) for k in ("passed", "failed", "skipped")}
    return out


def table(title, outcomes):
    short = {"passed": "pass", "failed": "FAIL", "skipped": "skip", "absent": "-"}
    print(f"\n{title}")
    print("| document | " + " | ".join(r.removesuffix("TranscriptTest") for r in ROUTES) + " |")
    print("| --- |" + " --- |" * len(ROUTES))
    for name, docs in outcomes.items():
        cells = [short[docs.get(r, "absent").split(":")[0]] for r in ROUTES]
        print(f"| {name} | " + " | ".join(cells) + " |")
    c = counts(outcomes)
    print("| passed / failed / skipped | " + " | ".join(
        f"{c[r]['passed']} / {c[r]['failed']} / {c[r]['skipped']}" for r in ROUTES) + " |")


def main():
    import apache_beam
    from apache_beam.transforms import trigger_test

    test_file = trigger_test.__file__
    check = "--check" in sys.argv
    shipped = run_pytest(test_file, ignore_broken_on=False)
    forced = run_pytest(test_file, ignore_broken_on=True)
    result = {
        "engine": f"beam-python {apache_beam.__version__}",
        "documents": len(shipped),
        "note": "names are the YAML documents' (the second of two with one name gets _1); "
                "the bad_* and missing_* documents check that the test's checker catches "
                "wrong transcripts (a pass means it did)",
        "as_shipped": {"counts": counts(shipped), "outcomes": shipped},
        "broken_on_ignored": {"counts": counts(forced), "outcomes": forced},
    }
    table("As shipped:", shipped)
    table("With broken_on ignored:", forced)
    if check:
        with open(RESULT) as f:
            recorded = json.load(f)
        same = {k: v for k, v in recorded.items() if k != "engine"} == \
            {k: v for k, v in result.items() if k != "engine"}
        print(f"\n{'1 passed, 0 failed' if same else '0 passed, 1 failed'}")
        sys.exit(0 if same else 1)
    os.makedirs(os.path.dirname(RESULT), exist_ok=True)
    with open(RESULT, "w") as f:
        json.dump(result, f, indent=1, sort_keys=False)
        f.write("\n")
    print(f"\nwrote {os.path.relpath(RESULT, HERE)}")


if __name__ == "__main__":
    main()
