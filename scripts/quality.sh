#!/usr/bin/env bash
# Scores the orientation detector on the labelled traces, side by side with the detectors users
# run today (iio-sensor-proxy, Android, rot8, Qt re-implementations) and the argmax floor.
#
#   scripts/quality.sh [--check] [--traces DIR] UPRIGHT_BINARY
#
# --check also enforces the quality gate (scripts/quality_gate.py) and fails when it is missed.
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
traces=bench/traces/public
while [ $# -gt 1 ]; do
    case "$1" in
        --check) check=1; shift ;;
        --traces) traces=$2; shift 2 ;;
        *) break ;;
    esac
done
bin=${1:?usage: scripts/quality.sh [--check] [--traces DIR] UPRIGHT_BINARY}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
python3 bench/score.py --traces "$traces" --isolate --json "$out/score.json" \
    --detector upright="$bin replay" \
    --detector iio-sensor-proxy="python3 bench/peers/iio_sensor_proxy.py" \
    --detector android="python3 bench/peers/android_wol.py" \
    --detector rot8="python3 bench/peers/rot8.py" \
    --detector qt="python3 bench/peers/qt_orientation.py" \
    --detector baseline="python3 bench/baseline_argmax.py"
if [ "$check" = 1 ]; then
    python3 scripts/quality_gate.py "$out/score.json"
fi
