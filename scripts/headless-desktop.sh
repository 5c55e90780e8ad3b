#!/usr/bin/env bash
# Starts a headless desktop compositor for tests on a private session bus, and prints where to
# reach it, as shell assignments:
#   BUS_PID=… COMPOSITOR_PID=… DBUS_SESSION_BUS_ADDRESS=… XDG_RUNTIME_DIR=… WAYLAND_DISPLAY=… HOME=…
#
#   scripts/headless-desktop.sh gnome|kde DIR [WIDTHxHEIGHT[,WIDTHxHEIGHT…]]
#
# DIR is the session's home and runtime directory (GNOME's settings live in DIR/.config/dconf,
# written by the bus's own dconf-service). Stop it with `kill $COMPOSITOR_PID $BUS_PID`.
# - gnome: mutter serves org.gnome.Mutter.DisplayConfig on that bus, with a virtual monitor for
#   each mode (Meta-0, Meta-1 …, left to right). Needs mutter, dbus, dconf-service.
# - kde: KWin with one virtual output Virtual-0, for kscreen-doctor (KSCREEN_BACKEND=KWayland,
#   QT_QPA_PLATFORM=wayland). kwin_wayland carries file capabilities this container refuses, so a
#   copy of it runs, still named kwin_wayland. Needs kwin-wayland, libkf5screen-bin, qtwayland5.
set -euo pipefail
desktop=${1:?usage: headless-desktop.sh gnome|kde DIR [WIDTHxHEIGHT]}
dir=${2:?usage: headless-desktop.sh gnome|kde DIR [WIDTHxHEIGHT]}
mode=${3:-800x1280}
# The caller's umask may be a narrow one for a moment (a test process creating a private socket):
# this script's files must be readable and its copy of kwin_wayland executable whatever it was.
umask 022
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
case "$desktop" in
gnome)
    monitors=()
    for m in ${mode//,/ }; do monitors+=(--virtual-monitor "$m"); done
    DBUS_SESSION_BUS_ADDRESS="$address" mutter --headless --wayland --no-x11 --wayland-display wayland-0 \
        "${monitors[@]}" >"$dir/compositor.log" 2>&1 &
    service=org.gnome.Mutter.DisplayConfig ;;
kde)
    mkdir -p "$dir/bin"
    cp /usr/bin/kwin_wayland "$dir/bin/kwin_wayland"
    DBUS_SESSION_BUS_ADDRESS="$address" "$dir/bin/kwin_wayland" --virtual --width "${mode%x*}" \
        --height "${mode#*x}" --socket wayland-0 >"$dir/compositor.log" 2>&1 &
    service=org.kde.KWin ;;
*) echo "unknown desktop $desktop (gnome or kde)" >&2; kill $bus; exit 2 ;;
esac
compositor=$!
for _ in $(seq 200); do
    DBUS_SESSION_BUS_ADDRESS="$address" gdbus call --session --dest org.freedesktop.DBus \
        --object-path /org/freedesktop/DBus --method org.freedesktop.DBus.NameHasOwner \
        "$service" 2>/dev/null | grep -q true && [ -S "$dir/runtime/wayland-0" ] && break
    sleep 0.05
done
if ! kill -0 $compositor 2>/dev/null; then
    echo "the $desktop compositor did not start: $(tail -5 "$dir/compositor.log")" >&2
    kill $bus
    exit 1
fi
echo "BUS_PID=$bus"
echo "COMPOSITOR_PID=$compositor"
echo "DBUS_SESSION_BUS_ADDRESS=$address"
echo "XDG_RUNTIME_DIR=$dir/runtime"
echo "WAYLAND_DISPLAY=wayland-0"
echo "HOME=$dir"
if [ "$desktop" = kde ]; then echo "KSCREEN_BACKEND=KWayland"; echo "QT_QPA_PLATFORM=wayland"; fi
