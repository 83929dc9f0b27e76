#!/usr/bin/env bash
# Whether two builds of twoclocks answer a set of pipeline runs byte for byte alike: aligned,
# unaligned and at-least-once barriers, several schedule seeds and stream seeds, long transits
# with short checkpoint intervals, crashes of the job and of one operator, table and JSON.
# Run it across a change to the pipeline that must not change what it does.
#
#   cargo build --release && cp target/release/twoclocks /tmp/after
#   benches/same_runs.sh /tmp/before /tmp/after
#
# Usage: benches/same_runs.sh BEFORE_BINARY AFTER_BINARY. Prints each run that differs and
# exits 1 if any does.
set -uo pipefail
if [ $# -ne 2 ]; then
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
before="$1"
after="$2"
differ=0
runs=0
for barriers in unaligned aligned at-least-once; do
    for seed in 1 7 42; do
        for dials in \
            "--events 3000 --parallelism 8 --partitions 8 --transit 40s --checkpoint-every 100ms" \
            "--events 2000 --parallelism 3 --partitions 4 --transit 5s --checkpoint-every 1ms --crash-at 120s,300s" \
            "--events 4000 --parallelism 2 --partitions 3 --transit 2s --checkpoint-every 7s --crash-at 100s,250s,251s,400s" \
            "--events 3000 --parallelism 4 --partitions 2 --transit 20s --checkpoint-every 10ms --crash-at 200s --window 30s --slide 10s" \
            "--events 1500 --parallelism 2 --partitions 2 --transit 900ms --checkpoint-every 500ms --crash-at 60s,61s --window 10s --accumulation discarding --format json"; do
            args="run --seed $seed --schedule-seed $((seed * 3)) --barriers $barriers $dials"
            runs=$((runs + 1))
            # shellcheck disable=SC2086
            if ! cmp -s <("$before" $args 2>&1) <("$after" $args 2>&1); then
                echo "differs: $args"
                differ=1
            fi
        done
    done
done
echo "$runs runs compared"
exit "$differ"
