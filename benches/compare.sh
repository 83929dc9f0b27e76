#!/usr/bin/env bash
# Alternated criterion runs of two checkouts of twoclocks, and the ratio of each benchmark's
# median, after / before. Alternating (before, after, before, after, ...) spreads the machine's
# drift over both sides; each checkout builds in its own target/, so neither run reuses the
# other's code.
#
#   git worktree add --detach ../before <rev>       # the checkout to compare against
#   benches/compare.sh ../before . 2 engine pipeline
#
# Usage: benches/compare.sh BEFORE_DIR AFTER_DIR [ROUNDS] [BENCH...]
# ROUNDS defaults to 2, the benches to every [[bench]] in Cargo.toml. The criterion logs are
# kept in $TWOCLOCKS_COMPARE_LOGS (default: a new temporary folder), and benches/compare.py
# prints the table from them.
set -euo pipefail
if [ $# -lt 2 ]; then
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
before="$(cd "$1" && pwd)"
after="$(cd "$2" && pwd)"
rounds="${3:-2}"
shift $(( $# < 3 ? $# : 3 ))
benches=("$@")
if [ ${#benches[@]} -eq 0 ]; then
    mapfile -t benches < <(awk '/^\[\[bench\]\]/{b=1; next} b && /^name *=/{gsub(/[" ]/,""); split($0,a,"="); print a[2]; b=0}' "$after/Cargo.toml")
fi
logs="${TWOCLOCKS_COMPARE_LOGS:-$(mktemp -d -t twoclocks-compare.XXXXXX)}"
mkdir -p "$logs"
echo "logs in $logs; benches: ${benches[*]}; $rounds round(s)"
for side in before after; do
    dir=$before; [ $side = after ] && dir=$after
    echo "== building $side ($dir)"
    (cd "$dir" && cargo bench --no-run --quiet)
done
for round in $(seq 1 "$rounds"); do
    for side in before after; do
        dir=$before; [ $side = after ] && dir=$after
        for b in "${benches[@]}"; do
            echo "== round $round, $side, $b"
            (cd "$dir" && cargo bench --quiet --bench "$b" -- --noplot) > "$logs/bench-$side-$round-$b.log" 2>&1
        done
    done
done
python3 "$here/compare.py" "$logs"
