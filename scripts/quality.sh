#!/usr/bin/env bash
# Scores the orientation detector on the labelled traces, beside the project's port of Android's
# detector and the argmax floor, in one run: the synthetic public traces, then the real recordings of
# a person walking (held, carried, and both started while walking: "cold").
#
#   scripts/quality.sh [--check] [--traces DIR] UPRIGHT_BINARY
#
# --check also enforces each set's quality gate (scripts/quality_gate.py) and fails when one is
# missed. --traces scores one folder alone, under the synthetic rules.
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
sets=("synthetic:bench/traces/public" "held:bench/traces/real/held" "cold:bench/traces/real/cold/held"
      "carried:bench/traces/real/carried" "carried:bench/traces/real/cold/carried")
while [ $# -gt 1 ]; do
    case "$1" in
        --check) check=1; shift ;;
        --traces) sets=("synthetic:$2"); shift 2 ;;
        *) break ;;
    esac
done
bin=${1:?usage: scripts/quality.sh [--check] [--traces DIR] UPRIGHT_BINARY}
[ -x "$bin" ] || { echo "quality.sh: $bin: no such executable (build Upright first)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0
for set in "${sets[@]}"; do
    rules=${set%%:*} traces=${set#*:}
    json="$out/$(echo "$traces" | tr / _).json"
    python3 bench/score.py --traces "$traces" --isolate --jobs 2 --json "$json" \
        --detector upright="$bin replay" \
        --detector android="python3 bench/peers/android.py" \
        --detector baseline="python3 bench/baseline_argmax.py" | grep -v '^wrote '
    if [ "$check" = 1 ]; then
        python3 scripts/quality_gate.py "$rules" "$json" || failed=1
    fi
done
exit $failed
