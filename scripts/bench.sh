#!/usr/bin/env bash
# `make bench`: every benchmark, each beside its baseline in the same run.
#   scripts/bench.sh RELEASE_BIN_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: scripts/bench.sh RELEASE_BIN_DIR}
python3 scripts/bench.py "$bin"
echo
python3 scripts/bench_sensor.py "$bin"
echo
echo "The example configuration read 2000 times (heap kept per read after a warm-up; TOMLKit is the reader it replaced):"
"$bin/upright-bench" --config config/upright.toml --reads 2000
echo
"$bin/upright-bench" --display
echo
echo "Item changes (image, video, video) through libmpv's render API, Upright beside plain libmpv:"
"$bin/upright-bench" --items
echo "The same on a screen (mpv's GPU output on a headless sway; every frame recorded by wf-recorder):"
python3 scripts/bench_screen.py "$bin"
echo
python3 scripts/bench_appliance.py "$bin"
echo
python3 scripts/bench_start.py "$bin"
echo
python3 scripts/bench_remote.py "$bin"
echo
python3 scripts/bench_faults.py "$bin"
echo
python3 scripts/bench_wall.py "$bin"
echo
python3 scripts/bench_listeners.py "$bin"
echo
echo "Detector quality on the synthetic traces and the real recordings (scorer, --isolate):"
scripts/quality.sh "$bin/upright" | sed -n '/^Traces:/,$p'
echo
# Several zones on one screen, three ways, under headless sway (issue 52).
python3 scripts/bench_zones.py
