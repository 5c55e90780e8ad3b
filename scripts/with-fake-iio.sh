#!/usr/bin/env bash
# Runs a command in a private mount namespace whose /sys/bus/iio is a fake sysfs tree, so the
# real libiio local backend (and a real iiod) read a device the caller controls by writing files.
#
#   scripts/with-fake-iio.sh TREE COMMAND [ARG...]
#
# TREE holds devices/iio:device0/{name, in_accel_x_raw, ...}. When TREE/udev exists it is mounted
# over /run/udev too, so that libudev reads the udev database it holds (data/c1:3, ...). As root it
# uses `unshare -m`; as a normal user `unshare -r -m`, where user namespaces are allowed.
set -euo pipefail
tree=$(cd "${1:?usage: with-fake-iio.sh TREE COMMAND [ARG...]}" && pwd)
shift
inner='mount -t tmpfs none /sys/bus && mkdir /sys/bus/iio && mount --bind "$0" /sys/bus/iio &&
if [ -d "$0/udev" ]; then mkdir -p /run/udev && mount --bind "$0/udev" /run/udev; fi && exec "$@"'
if [ "$(id -u)" -eq 0 ]; then
    exec unshare -m --propagation private sh -c "$inner" "$tree" "$@"
else
    exec unshare -r -m --propagation private sh -c "$inner" "$tree" "$@"
fi
