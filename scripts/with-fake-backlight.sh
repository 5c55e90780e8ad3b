#!/usr/bin/env bash
# Runs a command in a private mount namespace whose /sys/class/backlight is a fake tree, so that
# Upright finds, reads and writes a panel's backlight the caller controls (and reads back).
#
#   scripts/with-fake-backlight.sh TREE COMMAND [ARG...]
#
# TREE holds NAME/{brightness,max_brightness}. The rest of /sys/class stays the kernel's: its
# folders are mounted back one by one over the tmpfs that makes room for the fake. Needs root
# (`unshare -m`), or user namespaces (`unshare -r -m`).
set -euo pipefail
tree=$(cd "${1:?usage: with-fake-backlight.sh TREE COMMAND [ARG...]}" && pwd)
shift
inner='keep=$(mktemp -d) && mount --bind /sys/class "$keep" && mount -t tmpfs none /sys/class &&
for d in "$keep"/*; do n=${d##*/}; [ "$n" = backlight ] && continue; mkdir "/sys/class/$n" && mount --bind "$d" "/sys/class/$n"; done &&
mkdir /sys/class/backlight && mount --bind "$0" /sys/class/backlight && exec "$@"'
if [ "$(id -u)" -eq 0 ]; then
    exec unshare -m --propagation private sh -c "$inner" "$tree" "$@"
else
    exec unshare -r -m --propagation private sh -c "$inner" "$tree" "$@"
fi
