#!/usr/bin/env bash
# `make kiosk-check`: the .deb built from the tree on a virtual kiosk. Builds the package and
# (once) the Debian image, makes the clip (red above blue: its top shows which way is up), then
# runs kiosk_check.py. Everything lands in .build/kiosk; the VM and the fake iiod are stopped
# at the end, whatever happens.
#
#   KIOSK_SESSIONS="greetd + sway,cage unit"   the sessions to check (default: all four, the
#                                              read-only root and presence; none: only the
#                                              first-frame figures)
#   KIOSK_ROUNDS=2                             first-frame rounds, Upright beside plain mpv
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$PWD/.build/kiosk
mkdir -p "$work"
deb=$(scripts/make-deb.sh | grep '\.deb$' | head -1)
[ -f "$deb" ] || { echo "error: make-deb.sh built no package" >&2; exit 1; }
scripts/kiosk-check/build-image.sh "$work/image"
clip="$work/clip.mkv"
if [ ! -f "$clip" ]; then
    ffmpeg -loglevel error -y -f lavfi \
        -i "color=c=red:size=640x360:rate=25,drawbox=x=0:y=180:w=640:h=180:color=blue:t=fill" \
        -t 60 -c:v libx264 -pix_fmt yuv420p "$clip"
fi
exec python3 scripts/kiosk-check/kiosk_check.py --deb "$deb" --image "$work/image" --run "$work/run" \
    --results "$work/results" --clip "$clip" \
    ${KIOSK_SESSIONS:+--sessions "$KIOSK_SESSIONS"} --rounds "${KIOSK_ROUNDS:-2}"
