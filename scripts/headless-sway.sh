#!/usr/bin/env bash
# Starts a headless sway for tests and prints where to reach it, as shell assignments:
#   SWAY_PID=… XDG_RUNTIME_DIR=… SWAYSOCK=… WAYLAND_DISPLAY=…(absolute path)
#
#   scripts/headless-sway.sh DIR [WIDTHxHEIGHT [CONFIG]]
#
# CONFIG, when given, is read after the headless output's settings (`include`): the packaged kiosk
# session, for one. SWAY_PATH, when set, is the PATH sway and its clients run with.
# sway refuses to run as root, so as root it runs as the unprivileged user `upright-test`
# (created on first use). DIR holds its configuration, runtime directory and log; stop it with
# `kill -INT $SWAY_PID`. Needs sway (and, to take screenshots, grim).
set -euo pipefail
dir=${1:?usage: headless-sway.sh DIR [WIDTHxHEIGHT]}
mode=${2:-800x1280}
include=${3:-}
user=upright-test

mkdir -p "$dir/runtime"
cat > "$dir/sway.conf" <<CONF
output HEADLESS-1 resolution $mode
default_border none
focus_follows_mouse no
CONF
[ -n "$include" ] && echo "include $include" >> "$dir/sway.conf"
chmod 755 "$dir"; chmod 644 "$dir/sway.conf"; chmod 700 "$dir/runtime"

# sway must not keep the caller's descriptors open: a parent that waits for a pipe or socket to
# close (as Foundation's Process does) would wait for sway to exit.
for fd in /proc/$$/fd/*; do
    fd=${fd##*/}
    [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null || true
done

env=(WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 WLR_RENDERER=pixman XDG_RUNTIME_DIR="$dir/runtime")
[ -n "${SWAY_PATH:-}" ] && env+=(PATH="$SWAY_PATH")
if [ "$(id -u)" -eq 0 ]; then
    # Tests running side by side may create the user at the same moment: useradd locks the files.
    for _ in $(seq 50); do
        id "$user" >/dev/null 2>&1 && break
        useradd --system --no-create-home --shell /usr/sbin/nologin "$user" 2>/dev/null || sleep 0.1
    done
    chown "$user" "$dir" "$dir/runtime"
    setpriv --reuid="$user" --regid="$user" --init-groups --reset-env \
        env "${env[@]}" HOME="$dir" sway -c "$dir/sway.conf" >"$dir/sway.log" 2>&1 </dev/null &
else
    env "${env[@]}" sway -c "$dir/sway.conf" >"$dir/sway.log" 2>&1 </dev/null &
fi
pid=$!

for _ in $(seq 100); do
    # This sway's own socket (sway-ipc.UID.PID.sock): one that a killed sway left may be there too.
    sock=$(ls "$dir/runtime"/sway-ipc.*."$pid".sock 2>/dev/null | head -1 || true)
    wl=$(ls "$dir/runtime"/wayland-[0-9] 2>/dev/null | head -1 || true)
    if [ -n "$sock" ] && [ -n "$wl" ]; then
        echo "SWAY_PID=$pid"
        echo "XDG_RUNTIME_DIR=$dir/runtime"
        echo "SWAYSOCK=$sock"
        echo "WAYLAND_DISPLAY=$wl"
        exit 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "error: sway exited at start; its log:" >&2; cat "$dir/sway.log" >&2; exit 1
    fi
    sleep 0.05
done
echo "error: sway did not open its sockets within 5 s; its log:" >&2; cat "$dir/sway.log" >&2
kill -KILL "$pid" 2>/dev/null || true
exit 1
