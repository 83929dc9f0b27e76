"""Runs each document of one of twoclocks' transcript files through Beam's own transcript
tests, TriggerDriverTranscriptTest (GeneralTriggerDriver) and TestStreamTranscriptTest (a
TestStream on the DirectRunner), and prints PASS or the failure per route and document: the
check that a transcript written for twoclocks says what Beam itself does.

    /tmp/beam/bin/python tests/real_engines/beam_run_transcript.py tests/transcripts/positional_arguments.yaml

Recorded: results/beam-python-positional-arguments.txt.
"""

import logging
import sys

logging.disable(logging.WARNING)

import yaml  # noqa: E402
from apache_beam.transforms import trigger_test as tt  # noqa: E402

failed = 0
for route in (tt.TriggerDriverTranscriptTest, tt.TestStreamTranscriptTest):
    with open(sys.argv[1]) as f:
        specs = list(yaml.load_all(f, Loader=yaml.SafeLoader))
    for spec in specs:
        case = route("_run_log_test")
        try:
            case._run_log_test(spec)
            print(route.__name__, spec["name"], "PASS")
        except Exception as e:  # a failing document is the result, not a crash
            failed += 1
            print(route.__name__, spec["name"], "FAIL", type(e).__name__, str(e)[:300])
sys.exit(1 if failed else 0)
