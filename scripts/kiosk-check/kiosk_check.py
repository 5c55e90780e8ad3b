#!/usr/bin/env python3
"""`make kiosk-check`: Upright's package on a virtual kiosk.

Boots the image from build-image.sh under QEMU (software emulation, a virtio GPU without 3D),
installs the .deb built from the tree, and follows the kiosk setups of docs/KIOSK.md one after the
other — greetd + sway, the sway unit, the cage unit, the console — each through a reboot, as an
operator would. Each is judged by its screen (QMP screendumps read by pixels), `upright ctl
status` (as root and as a member of the group `upright`), the journal and the kernel log:

- the picture is on screen after boot;
- `ctl status` answers root and a member of `upright`; the log reaches the journal;
- the units are what docs/KIOSK.md says (Type=notify, NotifyAccess=main, a 30 s watchdog), their
  start ends (READY=1 reaches systemd) and a hung Upright trips the watchdog;
- one press of a uinput button bound to full screen toggles it once (it reaches Upright both
  through the compositor and through evdev);
- the accelerometer, served by iiod on the host over the VM's network, turns the picture;
- a uinput touchscreen the panel's size (multi-touch protocol B): in each compositor session, in
  each of the four orientations and with both strategies, `upright touch-check` hits every target
  tapped where a finger would tap its cross, within 2 % of the picture's size;
- kill -9 of the compositor leaves exactly one Upright and the picture back, and Upright never
  dumps core (systemd-coredump's record; a compositor's own crash, Mesa's software OpenGL on
  this GPU, is reported beside it).

Then the sway unit on a read-only root (as Raspberry Pi OS's overlay or an image-based system
has it): / mounted read-only, tmpfs on /tmp, /var/tmp and Upright's state and cache directories.
Upright plays a clip it downloads from the host into its cache, turns, logs, answers `ctl`, and
never meets a read-only file system on its way. The root is writable again afterwards.

Then presence, on the sway unit: `[screen] idle_off` with a TV on HDMI-CEC (vivid's HDMI input made
a TV by cec-follower, Upright on vivid's HDMI output). The TV goes to standby after the idle time
(the screen black, sway's output off), and a uinput button (KEY_WAKEUP, bound to `presence`) or
MQTT's command/presence from a broker on the host wakes both, the TV showing Upright's input, as the
TV's own log, sway, the screen and `ctl status` say. On the same boot, a disk's medium error
(scsi_debug's) in the kernel log reaches Upright through the journal (the unit may not read
/dev/kmsg), and `upright health` turns from exit 0 to exit 1 with it as the reason.

Last, the time from greetd's session start to the first frame on screen, Upright beside plain
mpv in the same session, alternating: after one uncounted start of each (warm: the files both
read are in the page cache), then with every cache dropped before each start (cold: a boot's
first start), each start only once the last session and its user's service manager are gone. Results (PNGs, journals, a summary) go to RESULTS.

    kiosk_check.py --deb upright_X_amd64.deb --image OUT --run RUN --results RESULTS
"""

import argparse
import json
import os
import shutil
import shlex
import signal
import socket
import subprocess
import sys
import time
import zlib
import struct

SSH_PORT = int(os.environ.get("KIOSK_SSH_PORT", "2222"))
IIO_PORT = int(os.environ.get("KIOSK_IIO_PORT", "30432"))
HTTP_PORT = int(os.environ.get("KIOSK_HTTP_PORT", "30480"))
HERE = os.path.dirname(os.path.abspath(__file__))


class Failure(Exception):
    pass


# --- The picture ------------------------------------------------------------------------------


class Screen:
    """A QMP screendump (binary PPM)."""

    def __init__(self, path):
        data = open(path, "rb").read()
        fields, i = [], 0
        while len(fields) < 4:
            while data[i : i + 1].isspace():
                i += 1
            j = i
            while not data[j : j + 1].isspace():
                j += 1
            fields.append(data[i:j])
            i = j
        self.width, self.height = int(fields[1]), int(fields[2])
        self.pixels = data[i + 1 : i + 1 + self.width * self.height * 3]
        self.path = path

    def rgb(self, x, y):
        o = (y * self.width + x) * 3
        return tuple(self.pixels[o : o + 3])

    def share(self, test, step=8):
        """The share of sampled pixels that pass `test`."""
        seen = hit = 0
        for y in range(0, self.height, step):
            for x in range(0, self.width, step):
                seen += 1
                hit += test(self.rgb(x, y))
        return hit / max(seen, 1)

    def shows_clip(self):
        """The clip (red above blue) fills a good part of the screen, whichever way it is turned."""
        red = self.share(lambda p: p[0] > 150 and p[1] < 90 and p[2] < 90)
        blue = self.share(lambda p: p[2] > 150 and p[0] < 90 and p[1] < 90)
        return red > 0.05 and blue > 0.05

    def describe(self):
        red = self.share(lambda p: p[0] > 150 and p[1] < 90 and p[2] < 90)
        blue = self.share(lambda p: p[2] > 150 and p[0] < 90 and p[1] < 90)
        black = self.share(lambda p: max(p) < 16)
        return f"{self.width}x{self.height} red {red:.0%} blue {blue:.0%} black {black:.0%}"

    def red_side(self):
        """Where the red half is from the blue half: top, bottom, left or right (the clip's top is
        red). Centroids, so a picture letterboxed or pillarboxed in black is read the same."""
        def centroid(test):
            xs = ys = n = 0
            for y in range(0, self.height, 8):
                for x in range(0, self.width, 8):
                    if test(self.rgb(x, y)):
                        xs, ys, n = xs + x, ys + y, n + 1
            return (xs / n, ys / n) if n else None

        red = centroid(lambda p: p[0] > 150 and p[1] < 90 and p[2] < 90)
        blue = centroid(lambda p: p[2] > 150 and p[0] < 90 and p[1] < 90)
        if red is None or blue is None:
            return "none"
        dx, dy = red[0] - blue[0], red[1] - blue[1]
        if abs(dx) > abs(dy):
            return "left" if dx < 0 else "right"
        return "top" if dy < 0 else "bottom"

    def save_png(self, path):
        w, h = self.width, self.height
        raw = b"".join(b"\0" + self.pixels[y * w * 3 : (y + 1) * w * 3] for y in range(h))

        def chunk(kind, body):
            return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

        header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
        with open(path, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6)))
            f.write(chunk(b"IEND", b""))


# --- The machine ------------------------------------------------------------------------------


class VM:
    def __init__(self, image, run):
        self.image, self.run = image, run
        self.share = os.path.join(run, "share")
        os.makedirs(self.share, exist_ok=True)
        self.qmp_path = os.path.join(run, "qmp.sock")
        self.console = os.path.join(run, "console.log")
        self.pid = None

    def boot(self):
        overlay = os.path.join(self.run, "overlay.qcow2")
        for path in (overlay, self.qmp_path, self.console):
            if os.path.exists(path):
                os.remove(path)
        subprocess.run(
            ["qemu-img", "create", "-q", "-f", "qcow2", "-b", os.path.join(self.image, "kiosk.qcow2"),
             "-F", "qcow2", overlay], check=True)
        pidfile = os.path.join(self.run, "qemu.pid")
        subprocess.run(
            ["qemu-system-x86_64", "-name", "upright-kiosk-check", "-machine", "q35",
             "-accel", "tcg,thread=multi,tb-size=512", "-cpu", "max", "-m", "2048", "-smp", "2",
             "-kernel", os.path.join(self.image, "vmlinuz"), "-initrd", os.path.join(self.image, "initrd.img"),
             "-append", "root=/dev/vda rw console=ttyS0,115200",
             "-drive", f"file={overlay},if=virtio,format=qcow2,cache=unsafe",
             "-vga", "none", "-device", "virtio-gpu-pci", "-display", "none",
             "-serial", f"file:{self.console}", "-monitor", "none",
             "-qmp", f"unix:{self.qmp_path},server=on,wait=off",
             "-fsdev", f"local,id=fs0,path={self.share},security_model=none",
             "-device", "virtio-9p-pci,fsdev=fs0,mount_tag=share",
             "-netdev", f"user,id=n0,hostfwd=tcp:127.0.0.1:{SSH_PORT}-:22", "-device", "virtio-net-pci,netdev=n0",
             "-device", "virtio-rng-pci", "-pidfile", pidfile, "-daemonize"], check=True)
        self.pid = int(open(pidfile).read())
        return self.wait_ssh()

    def wait_ssh(self, bound=300):
        start = time.time()
        while time.time() - start < bound:
            if self.ssh("true", timeout=10, check=False)[0] == 0:
                return time.time() - start
            time.sleep(1)
        raise Failure(f"the VM did not answer ssh within {bound} s (see {self.console})")

    def ssh(self, command, timeout=120, check=True):
        key = os.path.join(self.image, "id_ed25519")
        try:
            r = subprocess.run(
                ["ssh", "-q", "-i", key, "-p", str(SSH_PORT), "-o", "StrictHostKeyChecking=no",
                 "-o", "UserKnownHostsFile=/dev/null", "-o", "ConnectTimeout=5", "-o", "BatchMode=yes",
                 "root@127.0.0.1", command], capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            if check:
                raise Failure(f"ssh: {command!r} did not finish within {timeout} s")
            return 124, "", "timed out"
        if check and r.returncode != 0:
            raise Failure(f"ssh: {command!r} failed with {r.returncode}: {r.stderr.strip() or r.stdout.strip()}")
        return r.returncode, r.stdout, r.stderr

    def reboot(self):
        self.ssh("systemctl reboot", check=False, timeout=20)
        # ssh goes away, then comes back with the new boot.
        end = time.time() + 120
        while time.time() < end and self.ssh("true", timeout=5, check=False)[0] == 0:
            time.sleep(1)
        return self.wait_ssh()

    def qmp(self, command, arguments=None):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(30)
        s.connect(self.qmp_path)
        f = s.makefile("rw")
        json.loads(f.readline())
        f.write(json.dumps({"execute": "qmp_capabilities"}) + "\n")
        f.flush()
        json.loads(f.readline())
        f.write(json.dumps({"execute": command, **({"arguments": arguments} if arguments else {})}) + "\n")
        f.flush()
        while True:
            reply = json.loads(f.readline())
            if "return" in reply or "error" in reply:
                s.close()
                if "error" in reply:
                    raise Failure(f"QMP {command}: {reply['error']}")
                return reply["return"]

    def screendump(self, path):
        self.qmp("screendump", {"filename": path})
        return Screen(path)

    def stop(self):
        if self.pid is None:
            return
        try:
            self.qmp("quit")
        except (OSError, Failure):
            pass
        for _ in range(50):
            try:
                os.kill(self.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            os.kill(self.pid, signal.SIGKILL)
        self.pid = None


# --- The accelerometer ------------------------------------------------------------------------


class FakeAccelerometer:
    """An accel_3d device in a fake sysfs tree, served by a real iiod in its own mount and network
    namespaces; socat relays 127.0.0.1:IIO_PORT (the VM's 10.0.2.2) into that namespace only."""

    # Gravity at rest in Upright's device frame (x: right edge, y: top edge, z: out of the screen).
    GRAVITY = {
        "portrait": (0, 9.75, 0.9),
        "landscape-left": (9.75, 0, 0.9),
        "portrait-upside-down": (0, -9.75, 0.9),
        "landscape-right": (-9.75, 0, 0.9),
    }

    def __init__(self, run):
        self.tree = os.path.join(run, "iio")
        self.device = os.path.join(self.tree, "iio:device0")
        self.iiod = self.relay = None
        self.log = os.path.join(run, "iiod.log")

    def start(self, orientation):
        shutil.rmtree(self.tree, ignore_errors=True)
        os.makedirs(self.device)
        for name, value in [("name", "accel_3d"), ("in_accel_scale", "0.001"),
                            ("in_accel_sampling_frequency", "25")]:
            open(os.path.join(self.device, name), "w").write(value + "\n")
        self.set(orientation)
        inner = ('ip link set lo up && mount -t tmpfs none /sys/bus && mkdir -p /sys/bus/iio/devices && '
                 'mount --bind "$0" /sys/bus/iio/devices && exec iiod')
        self.iiod = subprocess.Popen(["unshare", "-m", "-n", "--propagation", "private", "sh", "-c", inner, self.tree],
                                     stdout=open(self.log, "w"), stderr=subprocess.STDOUT)
        time.sleep(1)
        self.relay = subprocess.Popen(
            ["socat", f"TCP-LISTEN:{IIO_PORT},bind=127.0.0.1,reuseaddr,fork",
             f"EXEC:nsenter -t {self.iiod.pid} -n socat STDIO TCP\\:127.0.0.1\\:30431"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        if self.iiod.poll() is not None or self.relay.poll() is not None:
            raise Failure(f"the fake accelerometer's iiod did not start: {open(self.log).read().strip()}")

    def set(self, orientation):
        # The hwdb frame (identity mount matrix) is Upright's turned by diag(-1, -1, 1).
        x, y, z = self.GRAVITY[orientation]
        for axis, value in zip("xyz", (-x, -y, z)):
            path = os.path.join(self.device, f"in_accel_{axis}_raw")
            open(path + ".new", "w").write(f"{round(value / 0.001)}\n")
            os.replace(path + ".new", path)

    def stop(self):
        for p in (self.relay, self.iiod):
            if p and p.poll() is None:
                p.kill()
                p.wait()


# --- The checks -------------------------------------------------------------------------------


class Report:
    def __init__(self, results):
        self.results = results
        self.passed, self.failed = [], []
        self.figures = []

    def check(self, name, ok, detail=""):
        (self.passed if ok else self.failed).append(name)
        line = f"{'PASS' if ok else 'FAIL'}: {name}" + (f" ({detail})" if detail else "")
        print(line, flush=True)
        with open(os.path.join(self.results, "checks.log"), "a") as f:
            f.write(line + "\n")
        return ok

    def figure(self, text):
        self.figures.append(text)
        print("FIGURE: " + text, flush=True)


CONFIG = """# kiosk-check: the clip, the accelerometer over the network, a button box's full-screen key.
[sensor]
uri = "ip:10.0.2.2:{port}"
device = "accel_3d"

[display]
natural = "landscape-right"   # virtio-gpu's 1280x800 panel: landscape untransformed

[player]
playlist = ["{item}"]
{console}
[hotkeys]
fullscreen = ["f", "F11", "KEY_F11"]
"""

# docs/KIOSK.md's "A GPU without 3D": software rendering for the session (virtio-gpu without virgl).
PIXMAN_GREETD = "sed -i 's|^command = \"|command = \"env WLR_RENDERER=pixman |' /etc/greetd/config.toml"


def pixman_unit(unit):
    return (f"mkdir -p /etc/systemd/system/{unit}.service.d && printf '[Service]\\nEnvironment=WLR_RENDERER=pixman\\n' "
            f"> /etc/systemd/system/{unit}.service.d/renderer.conf")


SESSIONS = {
    # name: (what docs/KIOSK.md says to do, the compositor process, the unit)
    "greetd + sway": (
        "cp /usr/share/upright/kiosk/greetd.toml /etc/greetd/config.toml && " + PIXMAN_GREETD
        + " && systemctl enable greetd", "sway", None),
    "sway unit": (pixman_unit("upright-sway") + " && systemctl disable getty@tty7 && systemctl enable upright-sway",
                  "sway", "upright-sway"),
    "cage unit": (pixman_unit("upright-cage") + " && systemctl disable getty@tty7 && systemctl enable upright-cage",
                  "cage", "upright-cage"),
    "console unit": ("systemctl disable getty@tty7 && systemctl enable upright-console", None, "upright-console"),
    # The sway unit again, the root read-only from the next boot on (read_only_root's checks too).
    "read-only root": (pixman_unit("upright-sway") + " && systemctl disable getty@tty7 && systemctl enable upright-sway"
                       # The mount points exist before the root turns read-only, as on an image.
                       + " && mkdir -p /var/cache/upright /var/lib/upright"
                       + " && cp /etc/fstab /etc/fstab.rw"
                       + " && sed -i 's|^/dev/vda / ext4 [^ ]*|/dev/vda / ext4 ro,errors=remount-ro|' /etc/fstab"
                       + " && cat >> /etc/fstab <<'F'\n"
                       "tmpfs /tmp tmpfs mode=1777,nosuid,nodev 0 0\n"
                       "tmpfs /var/tmp tmpfs mode=1777,nosuid,nodev 0 0\n"
                       "tmpfs /var/lib/upright tmpfs mode=0750,uid=upright,gid=upright 0 0\n"
                       "tmpfs /var/cache/upright tmpfs mode=0750,uid=upright,gid=upright 0 0\n"
                       "F", "sway", "upright-sway"),
}

# The read-only root's clip comes from the host over HTTP (10.0.2.2 is the host's loopback).
REMOTE_CLIP = f"http://10.0.2.2:{HTTP_PORT}/clip.mkv"

UNDO = "systemctl disable --now greetd upright-sway upright-cage upright-console 2>/dev/null; true"


def status(vm, user=None):
    prefix = f"runuser -u {user} -- " if user else ""
    code, out, err = vm.ssh(prefix + "upright ctl status", check=False, timeout=30)
    if code != 0:
        return None, (err or out).strip()
    try:
        return json.loads(out)["status"], ""
    except (ValueError, KeyError) as e:
        return None, f"not a status: {e}: {out[:200]}"


def unit_state(vm, unit):
    """The unit's state and restarts, as `systemctl show` says them on one line."""
    out = vm.ssh(f"systemctl show -p ActiveState -p SubState -p NRestarts {unit}", check=False)[1]
    return " ".join(sorted(out.split()))


def wait_for(predicate, bound, step=1.0):
    end = time.time() + bound
    while True:
        value = predicate()
        if value or time.time() > end:
            return value
        time.sleep(step)


def shot(vm, report, name):
    path = os.path.join(report.results, name + ".ppm")
    screen = vm.screendump(path)
    screen.save_png(os.path.join(report.results, name + ".png"))
    os.remove(path)
    return screen


def picture_within(vm, report, name, bound):
    """Screendumps until the clip shows (at most `bound` seconds); the last screen and the time."""
    start = time.time()
    tmp = os.path.join(report.results, ".probe.ppm")
    while True:
        screen = vm.screendump(tmp)
        if screen.shows_clip() or time.time() - start > bound:
            screen.save_png(os.path.join(report.results, name + ".png"))
            os.remove(tmp)
            return screen, time.time() - start
        time.sleep(0.2)


def upright_processes(vm):
    return vm.ssh("pgrep -c -x upright", check=False)[1].strip() or "0"


def crashes(vm):
    """Core dumps systemd-coredump caught this boot, as (executable, signal) pairs."""
    out = vm.ssh("coredumpctl --no-pager --no-legend -q list -F EXE -F SIGNAL 2>/dev/null; true", check=False)[1]
    dumps = []
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 2:
            dumps.append((fields[0], fields[1]))
    return dumps


# --- Touch ------------------------------------------------------------------------------------

# `upright touch-check`'s targets, in the picture's points as the viewer sees it.
TOUCH_TARGETS = [(0.1, 0.1), (0.9, 0.1), (0.9, 0.9), (0.1, 0.9), (0.5, 0.5)]
TOUCH_FIFO = "/run/kiosk-touch"
# The uinput touchscreen as sway names it (vendor 0x1209, product 2), and sway's socket for root.
TOUCH_ID = "4617:2:kiosk-check_touchscreen"
SWAY_ENV = "SWAYSOCK=$(ls -t /run/user/*/sway-ipc.*.sock /tmp/sway-ipc.*.sock 2>/dev/null | head -1)"
ORIENTATIONS = ["portrait", "landscape-right", "portrait-upside-down", "landscape-left"]


def turned(p, clockwise):
    """A point of the panel once a clockwise turn of `clockwise` degrees turns what it shows
    (Upright's TouchPath.turned: the touch matrix of the turn)."""
    x, y = p
    return {90: (y, 1 - x), 180: (1 - x, 1 - y), 270: (1 - y, x)}.get(clockwise % 360, (x, y))


def touch_report(vm):
    code, out, _ = vm.ssh("upright ctl touch-check", check=False, timeout=30)
    try:
        return json.loads(out).get("touch_check") or {}
    except ValueError:
        return {}


def touch_run(vm, extra=""):
    """One `upright touch-check` in the orientation shown, each target tapped on the panel where a
    finger would tap its cross (the picture's point taken back through the picture's turn and the
    output's: the compositor's mapping is what is judged). Returns its exit status, its output and
    its last report, or None when it did not start."""
    vm.ssh("rm -f /tmp/touch.txt /tmp/touch.rc; setsid nohup sh -c "
           f"'{SWAY_ENV} upright touch-check --timeout 90 {extra} > /tmp/touch.txt 2>&1; echo $? > /tmp/touch.rc' "
           ">/dev/null 2>&1 < /dev/null &")
    started = wait_for(lambda: (lambda r: r if r.get("running") and not r.get("taps") else None)(touch_report(vm)), 30)
    s, _ = status(vm)
    if not started or not s:
        return None
    turn = (started.get("angle", 0) + (s["display"].get("transform") or 0)) % 360
    points = [turned(t, -turn) for t in TOUCH_TARGETS]
    vm.ssh(f"echo '{' '.join(f'{x:.4f},{y:.4f}' for x, y in points)}' > {TOUCH_FIFO}", timeout=30)
    done = wait_for(lambda: vm.ssh("cat /tmp/touch.rc 2>/dev/null", check=False)[1].strip(), 60)
    out = vm.ssh("cat /tmp/touch.txt", check=False)[1]
    return done, out, touch_report(vm), (s["display"].get("transform"), started.get("angle"))


def touch_once(vm, report, name, strategy, orientation):
    """Every tap must hit, and land within 2 % of the picture's size."""
    what = f"{name}: a tap lands under the finger ({strategy}, {orientation})"
    ran = touch_run(vm)
    if ran is None:
        return report.check(what, False, "the touch check did not start")
    done, out, final, (output, angle) = ran
    taps = final.get("taps") or []
    width, height = final.get("width") or 1, final.get("height") or 1
    worst = max([max(abs(t["dx"]) / width, abs(t["dy"]) / height) for t in taps] or [1])
    lines = [line for line in out.splitlines() if line.startswith("target") or line.startswith("done")]
    return report.check(what, done == "0" and len(taps) == 5 and worst <= 0.02,
                        f"output turned {output}, picture turned {angle}; "
                        f"worst {worst:.1%}; " + "; ".join(lines or [out.strip()[:300]]))


def wrong_matrix(vm, report, name):
    """A calibration matrix deliberately wrong (the touchscreen mirrored across): the check names
    the misses and writes the matrix that undoes it; set, every tap hits again."""
    what = f"{name}: touch-check names the misses of a mirrored touchscreen and its matrix puts them right"
    _, said, err = vm.ssh(f"{SWAY_ENV}; echo \"$SWAYSOCK\"; swaymsg -s \"$SWAYSOCK\" -- input {TOUCH_ID} "
                          "calibration_matrix -1 0 1 0 1 0", check=False)
    ran = touch_run(vm, f"--write /tmp/touch.conf --device {TOUCH_ID}")
    written = vm.ssh("cat /tmp/touch.conf 2>/dev/null", check=False)[1].strip()
    matrix = written.split("calibration_matrix")[-1].split() if "calibration_matrix" in written else []
    vm.ssh(f"{SWAY_ENV}; swaymsg -s \"$SWAYSOCK\" -- input {TOUCH_ID} calibration_matrix "
           f"{' '.join(matrix) or '1 0 0 0 1 0'}", check=False)
    again = touch_run(vm)
    missed = ran is not None and ran[0] == "1" and ran[1].count("missed by") >= 4
    undone = len(matrix) == 6 and all(abs(float(v) - w) < 0.01 for v, w in zip(matrix, [1, 0, 0, 0, 1, 0]))
    healed = again is not None and again[0] == "0"
    return report.check(what, missed and undone and healed,
                        f"sway said: {' '.join((said + err).split())[:200]}; mirrored: {'; '.join(l for l in (ran[1] if ran else '').splitlines() if 'target' in l)}; "
                        f"written: {written.splitlines()[-1] if written else 'nothing'}; "
                        f"then: {(again[1].strip().splitlines() or ['?'])[-2] if again else 'did not start'}")


def touch_checks(vm, report, name, compositor):
    """A uinput touchscreen the size of the panel, made once (the session maps it as it would a
    real one), then the touch check in each orientation with each strategy of the full-screen
    scene (set by a drop-in, applied by a reload)."""
    shutil.copy(os.path.join(HERE, "uinput-touch.py"), os.path.join(vm.share, "uinput-touch.py"))
    vm.ssh(f"rm -f {TOUCH_FIFO}; mkfifo {TOUCH_FIFO}; setsid nohup python3 /mnt/share/uinput-touch.py "
           f"--serve {TOUCH_FIFO} > /tmp/touch-device.txt 2>&1 < /dev/null &")
    time.sleep(3)
    for strategy in ("interface", "surface"):
        # The full-screen scene in every orientation (upside-down too, which the app's default
        # leaves out), with the strategy under test.
        drop_in = (f'[app]\nsupported = {json.dumps(ORIENTATIONS)}\n'
                   f'[scenes.fullscreen]\nsupported = {json.dumps(ORIENTATIONS)}\nstrategy = "{strategy}"\n')
        vm.ssh(f"mkdir -p /etc/upright/upright.toml.d && cat > /etc/upright/upright.toml.d/50-touch.toml <<'EOF'\n"
               f"{drop_in}EOF\npkill -HUP -xf '(/usr/bin/)?upright play'", check=False)
        time.sleep(3)
        for orientation in ORIENTATIONS:
            vm.ssh(f"upright ctl rotate-to {orientation}", check=False)
            shown = wait_for(lambda: (lambda st: st if st and st["interface"] == orientation else None)(
                status(vm)[0]), 30)
            if not shown:
                report.check(f"{name}: a tap lands under the finger ({strategy}, {orientation})", False,
                             f"the picture never turned to {orientation}: {status(vm)[0]}")
                continue
            time.sleep(2)
            touch_once(vm, report, name, strategy, orientation)
    if compositor == "sway":
        wrong_matrix(vm, report, name)
    vm.ssh(f"echo quit > {TOUCH_FIFO}; rm -f /etc/upright/upright.toml.d/50-touch.toml; "
           "pkill -HUP -xf '(/usr/bin/)?upright play'", check=False)
    shot_doctor = vm.ssh("upright doctor 2>&1 | grep -i -A3 touch", check=False)[1]
    report.figure(f"{name}: doctor on touch: " + " | ".join(shot_doctor.strip().splitlines()[:6]))


def check_session(vm, report, accel, name, setup, compositor, unit):
    slug = name.replace(" + ", "-").replace(" ", "-")
    vm.ssh(UNDO)
    # The console on a GPU without 3D: mpv's plain DRM output, as the unit's comment says.
    console = '[player.mpv]\nvo = "drm"\n' if compositor is None else ""
    item = REMOTE_CLIP if name == "read-only root" else "/srv/upright/clip.mkv"
    config = CONFIG.format(port=IIO_PORT, console=console, item=item)
    vm.ssh(f"cat > /etc/upright/upright.toml <<'EOF'\n{config}EOF")
    vm.ssh(setup)
    accel.set("portrait")
    boot = vm.reboot()
    screen, took = picture_within(vm, report, f"{slug}-boot", 120)
    report.check(f"{name}: the picture is on screen after boot", screen.shows_clip(),
                 f"{screen.describe()}, {took:.0f} s after ssh answered ({boot:.0f} s)")

    s, why = status(vm)
    report.check(f"{name}: ctl status as root", s is not None and s.get("playing") is not None,
                 why or f"playing {s.get('playing')}")
    s, why = status(vm, user="attendant")
    report.check(f"{name}: ctl status as a member of upright", s is not None, why)

    journal = vm.ssh("journalctl -b --no-pager | grep -c 'upright: display: ' || true", check=False)[1].strip()
    report.check(f"{name}: Upright's log is in the journal", journal not in ("", "0"), f"{journal} display lines")
    if unit:
        props = vm.ssh(f"systemctl show -p Type -p NotifyAccess -p WatchdogUSec {unit}", check=False)[1].split()
        # In the compositor units the main process is `upright notify-relay`, which sends on what
        # Upright (the compositor's child, in the login session's scope) says.
        report.check(f"{name}: {unit} is Type=notify with a 30 s watchdog",
                     sorted(props) == sorted(["NotifyAccess=main", "Type=notify", "WatchdogUSec=30s"]),
                     " ".join(props))
        # READY=1 reached systemd: the unit's start ended, it did not time out and start again.
        state = wait_for(lambda: (lambda out: out if "SubState=running" in out else None)(
            unit_state(vm, unit)), 60) or unit_state(vm, unit)
        report.check(f"{name}: {unit} started (READY=1 reached systemd) and was not restarted",
                     "ActiveState=active" in state and "SubState=running" in state and "NRestarts=0" in state,
                     state)

    # One press of the button box's full-screen key: full screen, entered once (it reaches Upright
    # through evdev and through the compositor and mpv's window; the window's copy may come seconds
    # later on this emulated machine, so the count is taken 10 s after full screen shows).
    def fullscreen_decisions():
        out = vm.ssh("journalctl -b --no-pager | grep -c '\"cause\": \"fullscreen\"' || true", check=False)[1]
        return int(out.strip() or 0)

    before = fullscreen_decisions()
    vm.ssh("uinput-keys --wait 3 KEY_F11", timeout=60)
    after = wait_for(lambda: (lambda s: s if s and "fullscreen" in s["scenes"] else None)(status(vm)[0]), 40)
    time.sleep(10)
    still, _ = status(vm)
    made = fullscreen_decisions() - before
    report.check(f"{name}: one button press toggles full screen once",
                 after is not None and still is not None and "fullscreen" in still["scenes"] and made == 1,
                 f"scenes {(still or {}).get('scenes')}, {made} full-screen decisions")

    # The accelerometer over the network turns the picture (full screen follows the device).
    if after is not None and "fullscreen" in after["scenes"]:
        accel.set("landscape-left")
        first = wait_for(lambda: (lambda s: s if s and s["interface"] == "landscape-right" else None)(status(vm)[0]), 30)
        a = shot(vm, report, f"{slug}-landscape-right")
        accel.set("landscape-right")
        second = wait_for(lambda: (lambda s: s if s and s["interface"] == "landscape-left" else None)(status(vm)[0]), 30)
        time.sleep(2)
        b = shot(vm, report, f"{slug}-landscape-left")
        report.check(f"{name}: the accelerometer over iiod turns the picture",
                     first is not None and second is not None and a.red_side() != b.red_side(),
                     f"red side {a.red_side()} then {b.red_side()}")

    if compositor and name != "read-only root" and after is not None and "fullscreen" in after["scenes"]:
        touch_checks(vm, report, name, compositor)

    if compositor:
        vm.ssh(f"pkill -KILL -x {compositor}", check=False)
        time.sleep(3)
        screen, took = picture_within(vm, report, f"{slug}-after-kill", 120)
        count = wait_for(lambda: upright_processes(vm) == "1" and "1", 30) or upright_processes(vm)
        report.check(f"{name}: kill -9 of {compositor} leaves exactly one Upright", count == "1", f"{count} running")
        report.check(f"{name}: the picture is back after kill -9 of {compositor}", screen.shows_clip(),
                     f"{screen.describe()}, {took:.0f} s")
    found = crashes(vm)
    mine = [d for d in found if d[0].endswith("/upright")]
    others = [f"{os.path.basename(exe)} (signal {sig})" for exe, sig in found if not exe.endswith("/upright")]
    report.check(f"{name}: Upright never crashed (systemd-coredump)", not mine,
                 f"{len(mine)} core dumps of Upright" + (f"; others: {', '.join(others)}" if others else ""))
    if unit:
        # A hung Upright (stopped) trips the watchdog: systemd ends the unit within 30 s and starts
        # it again, and the picture comes back. (After the crash check: the watchdog's SIGABRT
        # leaves a core dump.)
        before = unit_state(vm, unit)
        vm.ssh("kill -STOP $(pgrep -o -xf '(/usr/bin/)?upright play')", check=False)
        tripped = wait_for(lambda: vm.ssh(f"journalctl -b -u {unit} --no-pager | grep -q 'Watchdog timeout'",
                                          check=False)[0] == 0, 60)
        vm.ssh("pkill -CONT -xf '(/usr/bin/)?upright play'", check=False)

        def restarts(state):
            return int(next((f.split("=")[1] for f in state.split() if f.startswith("NRestarts=")), "0") or 0)

        # Started again (the core dump of the hung process is written first: seconds under
        # emulation), then the picture: on the console the last one stays in the framebuffer.
        wait_for(lambda: (lambda st: st if restarts(st) > restarts(before) and "SubState=running" in st else None)(
            unit_state(vm, unit)), 120)
        time.sleep(3)
        screen, took = picture_within(vm, report, f"{slug}-after-watchdog", 120)
        after = unit_state(vm, unit)
        left = wait_for(lambda: upright_processes(vm) == "1" and "1", 30) or upright_processes(vm)
        report.check(f"{name}: after the watchdog exactly one Upright runs", left == "1", f"{left} running")
        report.check(f"{name}: a hung Upright trips the watchdog and the unit plays again",
                     bool(tripped) and screen.shows_clip() and "SubState=running" in after
                     and restarts(after) > restarts(before),
                     f"{'tripped' if tripped else 'not tripped within 60 s'}; {before} → {after}; "
                     f"{screen.describe()} {took:.0f} s later")
    if name == "read-only root":
        read_only_root(vm, report, name)
    keep_journal(vm, report, slug)
    if name == "read-only root":
        # Writable again for what comes after (the first-frame figures), through a boot: the
        # services started on the read-only root (logind) keep their view of it.
        vm.ssh("mount -o remount,rw / && mv /etc/fstab.rw /etc/fstab")
        vm.ssh(UNDO)
        vm.reboot()


def keep_journal(vm, report, slug):
    """This boot's journal, as RESULTS/SLUG-journal.txt (through the share)."""
    vm.ssh(f"journalctl -b --no-pager > /tmp/journal.txt; cp /tmp/journal.txt /mnt/share/{slug}-journal.txt",
           check=False)
    shutil.move(os.path.join(vm.share, f"{slug}-journal.txt"), os.path.join(report.results, f"{slug}-journal.txt"))


def read_only_root(vm, report, name):
    """What the read-only root adds: the root was read-only, the clip played from the cache, and
    nothing of Upright's met the read-only file system."""
    options = vm.ssh("findmnt -no OPTIONS /", check=False)[1].strip()
    report.check(f"{name}: / is mounted read-only", options.split(",")[0] == "ro", options)
    s, why = status(vm)
    cached = vm.ssh("ls /var/cache/upright", check=False)[1].split()
    report.check(f"{name}: the remote clip plays from the cache", s is not None and s.get("playing") is not None
                 and any(f.endswith(".mkv") for f in cached),
                 why or f"playing {s.get('playing')}; /var/cache/upright: {' '.join(cached)}")
    refused = vm.ssh("journalctl -b --no-pager _COMM=upright _COMM=upright-mpv | grep -ci 'read-only file system' "
                     "|| true", check=False)[1].strip()
    problem = (s or {}).get("problem")
    report.check(f"{name}: Upright never met the read-only file system", refused in ("", "0") and not problem,
                 f"{refused} log lines; problem: {problem}")


# --- Presence: the screen sleeps without a person and wakes for one, the TV over HDMI-CEC ---------

PRESENCE = "presence"
IDLE_OFF = 30
MQTT_PORT = int(os.environ.get("KIOSK_MQTT_PORT", "30483"))

# vivid's HDMI input (/dev/cec0, physical address 0.0.0.0) as a TV: cec-follower answers as one,
# goes to standby on <Standby> and on for <Image View On>, and logs each change of its state.
# Upright drives vivid's HDMI output (/dev/cec1, 1.0.0.0), as a player on a TV's first input.
TV_UNIT = """[Unit]
Description=kiosk-check's TV: vivid's HDMI input following HDMI-CEC as a TV does
After=systemd-modules-load.service
Before=upright-sway.service

[Service]
ExecStartPre=/bin/sh -c 'until [ -e /dev/cec0 ]; do sleep 0.2; done; cec-ctl -d0 --tv -o TV >/dev/null'
ExecStart=/usr/bin/cec-follower -d0 -v

[Install]
WantedBy=multi-user.target
"""

PRESENCE_CONFIG = """# kiosk-check: the screen sleeps after {idle} s without a person, and wakes for a button
# (a PIR on gpio-keys sends a key as this one does) or MQTT's command/presence.
[sensor]
uri = "ip:10.0.2.2:{sensor}"
device = "accel_3d"

[display]
natural = "landscape-right"

[player]
playlist = ["/srv/upright/clip.mkv"]

[screen]
idle_off = {idle}
cec = "/dev/cec1"            # vivid's HDMI output; /dev/cec0 is the TV's side

[hotkeys]
presence = ["KEY_WAKEUP"]

[mqtt]
url = "mqtt://10.0.2.2:{port}"
device = "kiosk"
screenshot_interval = 0
"""


def journal_times(vm, pattern):
    """The times (seconds since the epoch, the VM's clock) of this boot's log lines holding `pattern`."""
    out = vm.ssh(f"journalctl -b -o short-unix --no-pager | grep -F -- {shlex.quote(pattern)} || true",
                 check=False)[1]
    return [float(line.split()[0]) for line in out.splitlines() if line.strip()]


def dpms(vm):
    """sway's power state of the output: True on, False off, None unknown."""
    out = vm.ssh(f"{SWAY_ENV} swaymsg -r -t get_outputs", check=False)[1]
    try:
        output = json.loads(out)[0]
    except (ValueError, IndexError):
        return None
    return output.get("power", output.get("dpms"))


def screen_is(vm, state):
    return wait_for(lambda: (lambda s: s if s and s.get("screen") == state else None)(status(vm)[0]),
                    IDLE_OFF + 60)


def presence_check(vm, report):
    """`[screen] idle_off` on the sway unit with a TV on HDMI-CEC: the TV to standby after the
    idle time, and on again for a uinput button and for MQTT's command/presence (from the host's
    broker), each judged by the TV's own state (cec-follower's log), sway's power state, the
    screen and `ctl status`."""
    name = PRESENCE
    vm.ssh(UNDO)
    config = PRESENCE_CONFIG.format(idle=IDLE_OFF, port=MQTT_PORT, sensor=IIO_PORT)
    vm.ssh(f"cat > /etc/upright/upright.toml <<'EOF'\n{config}EOF")
    vm.ssh(f"cat > /etc/systemd/system/kiosk-tv.service <<'EOF'\n{TV_UNIT}EOF")
    vm.ssh(pixman_unit("upright-sway") + " && systemctl disable getty@tty7 && systemctl daemon-reload"
           " && systemctl enable kiosk-tv upright-sway")
    vm.reboot()
    screen, took = picture_within(vm, report, "presence-boot", 120)
    s, why = status(vm)
    report.check(f"{name}: playing after boot, someone counted there at the start",
                 screen.shows_clip() and s is not None and s.get("screen") == "on" and s.get("present") is True,
                 why or f"{screen.describe()}; screen {s.get('screen')}, present {s.get('present')}")

    def tv(said):
        """The times the TV (cec-follower) said `said` this boot."""
        return journal_times(vm, ">>> " + said)

    def asleep(label):
        """Waits for the screen to go off; the times the TV went to standby since."""
        before = len(tv("Changing state to standby"))
        off = screen_is(vm, "off")
        dark = shot(vm, report, f"presence-off-{before}")
        def standbys():
            n = len(tv("Changing state to standby"))
            return n if n > before else None
        standby = wait_for(standbys, 20) or before
        power = dpms(vm)
        report.check(f"{name}: {label}: the screen off and the TV to standby after {IDLE_OFF} s without a person",
                     off is not None and standby > before and power is False
                     and dark.share(lambda p: max(p) < 16) > 0.95,
                     f"status screen {(off or {}).get('screen')}, TV to standby {standby - before} time(s), "
                     f"sway power {power}, {dark.describe()}")
        return tv("Changing state to standby")[before:]

    def woken(label, slug, action):
        ons, sources = len(tv("Changing state to on")), len(tv("New active source: 1.0.0.0"))
        action()
        on = screen_is(vm, "on")
        screen, took = picture_within(vm, report, f"presence-{slug}", 60)
        more = wait_for(lambda: len(tv("Changing state to on")) > ons
                        and len(tv("New active source: 1.0.0.0")) > sources, 20)
        power = dpms(vm)
        report.check(f"{name}: {label} wakes the screen and the TV, which shows this input",
                     on is not None and bool(more) and power is True and screen.shows_clip(),
                     f"status screen {(on or {}).get('screen')}, present {(on or {}).get('present')}; TV on "
                     f"{'and this input its active source' if more else 'not seen'}; sway power {power}; "
                     f"{screen.describe()} {took:.0f} s after")

    asleep("after boot")
    woken("a uinput button (KEY_WAKEUP)", "button", lambda: vm.ssh("uinput-keys --wait 3 KEY_WAKEUP", timeout=60))
    pressed = journal_times(vm, "KEY_WAKEUP on /dev/input/")
    slept = asleep("after the button")
    gap = slept[0] - pressed[-1] if pressed and slept else None
    report.check(f"{name}: the TV went to standby {IDLE_OFF} s after the button, not before",
                 gap is not None and IDLE_OFF <= gap <= IDLE_OFF + 5,
                 f"{gap:.1f} s" if gap is not None else "no button or no standby in the log")
    woken("MQTT's command/presence", "mqtt", lambda: subprocess.run(
        ["mosquitto_pub", "-h", "127.0.0.1", "-p", str(MQTT_PORT), "-t", "upright/kiosk/command/presence",
         "-m", "ON"], check=True, timeout=30))
    answer = vm.ssh("cec-ctl -d1 --to 0 --give-device-power-status 2>&1 | grep pwr-state || true", check=False)[1]
    report.check(f"{name}: the TV answers <Give Device Power Status> with on", "on (0x00)" in answer
                 or "to-on (0x02)" in answer, answer.strip() or "no answer")
    # A disk whose medium fails (scsi_debug: a medium error on reads of sector 4660), read once:
    # the kernel logs it. The sway unit may not read /dev/kmsg (ProtectKernelLogs=), so Upright
    # reads the kernel's records from the journal (its user is in systemd-journal), and
    # `upright health` fails with the error as its reason.
    healthy = vm.ssh("upright health", check=False)
    disk = vm.ssh("modprobe scsi_debug opts=2 && udevadm settle && "
                  "grep -l scsi_debug /sys/block/sd*/device/model | cut -d/ -f4 | head -1", check=False)[1].strip()
    vm.ssh(f"dd if=/dev/{disk} of=/dev/null bs=512 skip=4660 count=1 2>/dev/null; true", check=False)
    seen = wait_for(lambda: (lambda s: s if s and (s.get("hardware") or {}).get("storage_errors") else None)(
        status(vm)[0]), 60)
    verdict = vm.ssh("upright health", check=False)
    report.check(f"{name}: a failing disk's error in the kernel log, read through the journal, fails `upright health`",
                 healthy[0] == 0 and seen is not None and verdict[0] == 1 and f"storage error on {disk}" in verdict[1]
                 and bool(disk),
                 f"before: exit {healthy[0]} {healthy[1].strip()!r}; storage_errors "
                 f"{((seen or {}).get('hardware') or {}).get('storage_errors')}; "
                 f"after: exit {verdict[0]} {verdict[1].strip()!r}")
    keep_journal(vm, report, "presence")
    vm.ssh(UNDO + "; systemctl disable --now kiosk-tv 2>/dev/null; rm -f /etc/systemd/system/kiosk-tv.service; true")


def first_frame_figures(vm, report, rounds):
    """greetd's session start to the first frame of the clip: Upright's session, then plain mpv's
    in the same compositor and session script, alternating. Twice: with Upright's launch
    orientation the panel's own (landscape-right: nothing to turn, the same work as plain mpv's),
    then with the default launch (portrait: the output turned before the first frame, which plain
    mpv never does)."""
    vm.ssh(UNDO)
    # root's service manager kept running: each ssh login of the check would otherwise start it
    # (about 2 s of CPU under emulation) and stop it 10 s after, in the middle of a measured start.
    vm.ssh("loginctl enable-linger root")
    # Plain mpv: the packaged sway configuration with mpv's command in place of Upright's.
    vm.ssh("sed 's|^exec .*upright.*|exec mpv --no-config --fs --loop --vo=wlshm /srv/upright/clip.mkv|' "
           "/usr/share/upright/kiosk/sway.conf > /etc/upright/plain-mpv.conf && "
           "grep -q '^exec mpv' /etc/upright/plain-mpv.conf")
    greetd = "/usr/share/upright/kiosk/greetd.toml"
    vm.ssh(f"sed 's|/usr/share/upright/kiosk/sway.conf|/etc/upright/plain-mpv.conf|' {greetd} "
           "> /etc/upright/greetd-plain.toml && grep -q plain-mpv /etc/upright/greetd-plain.toml")
    vm.ssh(f"cp {greetd} /etc/upright/greetd-upright.toml")
    for config in ("/etc/upright/greetd-plain.toml", "/etc/upright/greetd-upright.toml"):
        vm.ssh(PIXMAN_GREETD.replace("/etc/greetd/config.toml", config))
    # Nothing to turn: the launch and the playing scene both the panel's own orientation (the
    # inline scene allows portrait alone by default, and would turn the output from it at once).
    panel = '\n[scenes.idle]\nsupported = ["landscape-right"]\n[scenes.inline]\nsupported = ["landscape-right"]\n'
    for launch, turned in (("landscape-right", "nothing to turn"), ("portrait", "the output turned at launch")):
        config = CONFIG.format(port=IIO_PORT, console="", item="/srv/upright/clip.mkv") + f'\n[app]\nlaunch = "{launch}"\n'
        if launch == "landscape-right":
            config += panel
        vm.ssh(f"cat > /etc/upright/upright.toml <<'EOF'\n{config}EOF")
        first_frames(vm, report, rounds, f"launch {launch}: {turned}")


def first_frames(vm, report, rounds, setting):
    """One series of `first_frame_figures`, Upright under `setting`."""
    greetd = "/etc/upright/greetd-upright.toml"
    # One uncounted start of each first (whichever started first would otherwise read the libraries
    # both use from the disk for the other), then `rounds` alternating starts with the files in
    # the page cache, then `rounds` with every cache dropped before each start (a boot's first).
    plan = [("warm-up", False)] + [("warm", False)] * rounds + [("cold", True)] * rounds
    times = {(who, kind): [] for who in ("upright", "mpv") for kind in ("warm", "cold")}
    for kind, cold in plan:
        for who, config in (("upright", greetd), ("mpv", "/etc/upright/greetd-plain.toml")):
            # The last session's picture stays in the framebuffer: another VT's text replaces it,
            # and the clock starts only once the clip is off the screen.
            vm.ssh(f"systemctl stop greetd; pkill -KILL -x sway; chvt 2; cp {config} /etc/greetd/config.toml",
                   check=False)
            # The last session wholly gone (its processes, and the user's service manager, which
            # stops after them): a start that finds the manager still running skips its start.
            vm.ssh("for i in $(seq 300); do pgrep -u upright >/dev/null || "
                   "systemctl is-active --quiet user@$(id -u upright).service || exit 0; sleep 0.2; done",
                   check=False)
            black = os.path.join(report.results, ".probe.ppm")
            cleared = wait_for(lambda: not vm.screendump(black).shows_clip(), 30)
            if not cleared:
                report.check(f"first frame ({who}): the screen is cleared before the session starts", False,
                             "the clip still shows 30 s after the session ended")
                continue
            if cold:
                vm.ssh("sync && echo 3 > /proc/sys/vm/drop_caches")
            start = time.time()
            vm.ssh("systemctl start greetd")
            screen, _ = picture_within(vm, report, f"first-frame-{who}", 90)
            took = time.time() - start  # from the start of greetd, its own start included
            if os.path.exists(black):
                os.remove(black)
            if screen.shows_clip() and kind != "warm-up":
                times[(who, kind)].append(took)
            report.check(f"first frame ({who}, {setting}, {kind}): the clip shows after greetd starts", screen.shows_clip(),
                         f"{took:.1f} s")
    vm.ssh("systemctl stop greetd", check=False)
    for kind in ("warm", "cold"):
        ups, mpvs = times[("upright", kind)], times[("mpv", kind)]
        if ups and mpvs:
            u = sum(ups) / len(ups)
            m = sum(mpvs) / len(mpvs)
            report.figure(f"greetd session start to first frame, {setting}, {kind} ({'caches dropped before each start' if kind == 'cold' else 'after one uncounted start of each'}): "
                          f"Upright {', '.join(f'{t:.1f}' for t in ups)} s (mean {u:.1f}); "
                          f"plain mpv {', '.join(f'{t:.1f}' for t in mpvs)} s (mean {m:.1f}); difference {u - m:+.1f} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deb", required=True)
    parser.add_argument("--image", required=True)
    parser.add_argument("--run", required=True)
    parser.add_argument("--results", required=True)
    parser.add_argument("--clip", required=True, help="the clip to play: red above blue")
    parser.add_argument("--sessions", default=",".join([*SESSIONS, PRESENCE]),
                        help=f"which, comma-separated ('{PRESENCE}': idle_off with a CEC TV; 'none': only the "
                        "first-frame figures)")
    parser.add_argument("--rounds", type=int, default=2, help="first-frame rounds (0: none)")
    args = parser.parse_args()
    # A stop (SIGTERM, or Ctrl-C's SIGINT) ends the run through its `finally`: the VM, the fake
    # accelerometer's iiod and relay, and the HTTP server go with it.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    for name in ("deb", "image", "run", "results", "clip"):
        setattr(args, name, os.path.abspath(getattr(args, name)))
    shutil.rmtree(args.results, ignore_errors=True)
    os.makedirs(args.results)
    os.makedirs(args.run, exist_ok=True)
    report = Report(args.results)
    vm, accel = VM(args.image, args.run), FakeAccelerometer(args.run)
    start = time.time()
    # The read-only root's remote clip, served from the share on the host's loopback.
    http = subprocess.Popen([sys.executable, "-m", "http.server", "--bind", "127.0.0.1", "--directory", vm.share,
                             str(HTTP_PORT)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # The broker Home Assistant would use, for the presence check's command/presence.
    broker_conf = os.path.join(args.run, "mosquitto.conf")
    with open(broker_conf, "w") as f:
        f.write(f"listener {MQTT_PORT} 127.0.0.1\nallow_anonymous true\n")
    broker = subprocess.Popen(["/usr/sbin/mosquitto", "-c", broker_conf], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        accel.start("portrait")
        shutil.copy(args.deb, os.path.join(vm.share, "upright.deb"))
        shutil.copy(args.clip, os.path.join(vm.share, "clip.mkv"))
        up = vm.boot()
        report.check("the VM boots", True, f"ssh after {up:.0f} s")
        vm.ssh("dpkg -i /mnt/share/upright.deb >/tmp/dpkg.log 2>&1 || (cat /tmp/dpkg.log; false)")
        report.check("the package installs", True, vm.ssh("upright --version")[1].strip())
        vm.ssh("mkdir -p /srv/upright && cp /mnt/share/clip.mkv /srv/upright/ && chmod -R a+rX /srv/upright")
        vm.ssh("adduser attendant upright >/dev/null")
        for name in [] if args.sessions == "none" else args.sessions.split(","):
            if name not in SESSIONS and name != PRESENCE:
                raise Failure(f"no session named {name!r} (there are: {', '.join([*SESSIONS, PRESENCE])})")
            try:
                if name == PRESENCE:
                    presence_check(vm, report)
                else:
                    check_session(vm, report, accel, name, *SESSIONS[name])
            except Failure as e:
                report.check(f"{name}: ran to its end", False, str(e))
        if args.rounds:
            first_frame_figures(vm, report, args.rounds)
    except (Failure, subprocess.CalledProcessError, OSError) as e:
        report.check("the run", False, str(e))
    finally:
        vm.stop()
        accel.stop()
        for server in (http, broker):
            server.terminate()
            server.wait()
        if os.path.exists(vm.console):
            shutil.copy(vm.console, os.path.join(args.results, "console.log"))
    took = time.time() - start
    report.figure(f"run time {took / 60:.1f} min")
    with open(os.path.join(args.results, "summary.txt"), "w") as f:
        f.write(f"{len(report.passed)} passed, {len(report.failed)} failed in {took:.0f} s\n")
        for line in report.figures:
            f.write(line + "\n")
    print(f"{len(report.passed)} passed, {len(report.failed)} failed in {took:.0f} s")
    return 0 if not report.failed else 1


if __name__ == "__main__":
    sys.exit(main())
