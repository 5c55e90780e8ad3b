#!/usr/bin/env bash
# Starts a headless GNOME compositor for tests on a private session bus, and prints where to reach
# it, as shell assignments:
#   BUS_PID=… MUTTER_PID=… DBUS_SESSION_BUS_ADDRESS=… XDG_RUNTIME_DIR=… WAYLAND_DISPLAY=… HOME=…
#
#   scripts/headless-mutter.sh DIR [WIDTHxHEIGHT]
#
# DIR is the session's home and runtime directory (its settings live in DIR/.config/dconf, written
# by the bus's own dconf-service). mutter serves org.gnome.Mutter.DisplayConfig on that bus, with one
# virtual monitor Meta-0. Stop both with `kill $MUTTER_PID $BUS_PID`. Needs mutter, dbus, dconf-service.
set -euo pipefail
dir=${1:?usage: headless-mutter.sh DIR [WIDTHxHEIGHT]}
mode=${2:-800x1280}
mkdir -p "$dir/runtime" "$dir/.config"
chmod 700 "$dir/runtime"

# Neither may keep the caller's descriptors open (a parent waiting for a pipe to close would wait
# for them to exit).
for fd in /proc/$$/fd/*; do
    fd=${fd##*/}
    [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null || true
done

export HOME="$dir" XDG_CONFIG_HOME="$dir/.config" XDG_RUNTIME_DIR="$dir/runtime" GSETTINGS_BACKEND=dconf
# The bus's activated services (dconf-service) inherit this environment: HOME above, so settings
# stay in DIR.
dbus-daemon --session --nofork --print-address=3 3>"$dir/bus-address" >"$dir/bus.log" 2>&1 &
bus=$!
for _ in $(seq 100); do [ -s "$dir/bus-address" ] && break; sleep 0.05; done
address=$(head -n1 "$dir/bus-address")
[ -n "$address" ] || { echo "dbus-daemon did not start: $(cat "$dir/bus.log")" >&2; kill $bus; exit 1; }
DBUS_SESSION_BUS_ADDRESS="$address" mutter --headless --wayland --no-x11 --wayland-display wayland-0 \
    --virtual-monitor "$mode" >"$dir/mutter.log" 2>&1 &
mutter=$!
for _ in $(seq 200); do
    DBUS_SESSION_BUS_ADDRESS="$address" gdbus call --session --dest org.freedesktop.DBus \
        --object-path /org/freedesktop/DBus --method org.freedesktop.DBus.NameHasOwner \
        org.gnome.Mutter.DisplayConfig 2>/dev/null | grep -q true && [ -S "$dir/runtime/wayland-0" ] && break
    sleep 0.05
done
if ! kill -0 $mutter 2>/dev/null; then
    echo "mutter did not start: $(tail -5 "$dir/mutter.log")" >&2
    kill $bus
    exit 1
fi
echo "BUS_PID=$bus"
echo "MUTTER_PID=$mutter"
echo "DBUS_SESSION_BUS_ADDRESS=$address"
echo "XDG_RUNTIME_DIR=$dir/runtime"
echo "WAYLAND_DISPLAY=wayland-0"
echo "HOME=$dir"
