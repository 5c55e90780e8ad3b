#!/usr/bin/env python3
"""Several zones on one screen, three ways, under a headless sway (1920x1080, pixman, wlshm):
what each costs the video zone (frames dropped or late) and the machine (CPU seconds).

  A  the video alone, the whole window (the baseline);
  B  one mpv window: the video placed in its zone with video-margin-ratio-*, and two picture
     zones drawn over it with overlay-add (BGRA), a new picture in each every second;
  C  two mpv windows placed by sway (floating, moved and sized): the video in one, the
     pictures (one a second) in the other.

Prints one line a way: the video's frame-drop-count, decoder-frame-drop-count and
vo-delayed-frame-count after SECONDS, the CPU seconds of every mpv process and of sway (which
composites the windows), and whether a screenshot shows the picture zones where they belong.

  scripts/bench_zones.py [SECONDS]
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 20


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def sway(work):
    out = run([os.path.join(HERE, "headless-sway.sh"), work, "1920x1080"]).stdout
    env = dict(os.environ)
    for line in out.split():
        k, _, v = line.partition("=")
        env[k] = v
    return env


def media(work):
    video = os.path.join(work, "video.mp4")
    run(["ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i", f"testsrc2=size=1440x1080:rate=30:duration={SECONDS + 10}",
         "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", video])
    pictures = []
    for i, colour in enumerate(["red", "green", "blue", "yellow", "cyan", "magenta"]):
        jpg = os.path.join(work, f"p{i}.jpg")
        raw = os.path.join(work, f"p{i}.bgra")
        run(["ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i", f"color=c={colour}:size=480x540,format=rgb24",
             "-frames:v", "1", jpg])
        run(["ffmpeg", "-loglevel", "error", "-i", jpg, "-f", "rawvideo", "-pix_fmt", "bgra", raw])
        pictures.append((jpg, raw))
    return video, pictures


class Client:
    def __init__(self, path):
        for _ in range(100):
            try:
                self.s = socket.socket(socket.AF_UNIX)
                self.s.connect(path)
                break
            except OSError:
                time.sleep(0.1)
        self.f = self.s.makefile("rb")

    def call(self, *command):
        self.s.sendall((json.dumps({"command": list(command)}) + "\n").encode())
        while True:
            reply = json.loads(self.f.readline())
            if "event" not in reply:
                return reply.get("data")


def mpv(env, work, name, *args):
    sock = os.path.join(work, name + ".sock")
    p = subprocess.Popen(["mpv", "--vo=wlshm", "--ao=null", "--no-config", "--really-quiet", f"--title={name}",
                          f"--input-ipc-server={sock}", "--keep-open=yes", *args], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return p, Client(sock)


def cpu(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def frames(c):
    return [c.call("get_property", p) for p in ("frame-drop-count", "decoder-frame-drop-count", "vo-delayed-frame-count")]


def shown(env, work):
    """Whether the upper picture zone shows at its place: its middle is one of the pictures'
    plain colours (the video zone is seen playing by its frame counts)."""
    shot = os.path.join(work, "shot.ppm")
    run(["grim", "-t", "ppm", shot], env=env)
    with open(shot, "rb") as f:
        data = f.read()
    header = data.split(b"\n", 3)
    width = int(header[1].split()[0])
    pixels = header[3]

    def at(x, y):
        i = (y * width + x) * 3
        return tuple(pixels[i:i + 3])

    plain = {(255, 0, 0), (0, 128, 0), (0, 0, 255), (255, 255, 0), (0, 255, 255), (255, 0, 255)}
    near = lambda c: any(sum(abs(a - b) for a, b in zip(c, p)) < 40 for p in plain)
    return near(at(1680, 270))


def way_a(env, work, video, pictures):
    p, c = mpv(env, work, "a", "--fullscreen", video)
    time.sleep(SECONDS)
    result = frames(c), cpu(p.pid), None
    p.kill()
    return result


def way_b(env, work, video, pictures):
    p, c = mpv(env, work, "b", "--fullscreen", "--video-margin-ratio-right=0.25", video)
    start = time.monotonic()
    k = 0
    while time.monotonic() - start < SECONDS:
        for zone, y in ((0, 0), (1, 540)):
            _, raw = pictures[(k + zone) % len(pictures)]
            c.call("overlay-add", zone, 1440, y, raw, 0, "bgra", 480, 540, 480 * 4)
        k += 1
        time.sleep(1)
    result = frames(c), cpu(p.pid), shown(env, work)
    p.kill()
    return result


def way_c(env, work, video, pictures):
    swaymsg = ["swaymsg", "-s", env["SWAYSOCK"]]
    for title, place in (("c-video", "resize set 1440 1080, move position 0 0"),
                         ("c-pictures", "resize set 480 1080, move position 1440 0")):
        run(swaymsg + ["--", f"for_window [title=\"^{title}$\"] 'floating enable, {place}'"], env=env)
    p, c = mpv(env, work, "c-video", video)
    q, _ = mpv(env, work, "c-pictures", "--image-display-duration=1", "--loop-playlist=inf",
               *[jpg for jpg, _ in pictures])
    time.sleep(SECONDS)
    result = frames(c), cpu(p.pid) + cpu(q.pid), shown(env, work)
    p.kill()
    q.kill()
    return result


def main():
    with tempfile.TemporaryDirectory(prefix="upright-zones-") as work:
        os.chmod(work, 0o755)
        env = sway(os.path.join(work, "sway"))
        try:
            video, pictures = media(work)
            for f in [video] + [x for pair in pictures for x in pair]:
                os.chmod(f, 0o644)
            print(f"zones: {SECONDS:.0f} s each; the video's frames dropped (output, decoder) and delayed; "
                  "CPU seconds of mpv and of sway; the zones seen in place")
            for name, way in (("A video alone", way_a), ("B one window, overlays", way_b),
                              ("C two windows, sway", way_c)):
                before = cpu(int(env["SWAY_PID"]))
                (dropped, decoder, delayed), seconds, placed = way(env, work, video, pictures)
                composited = cpu(int(env["SWAY_PID"])) - before
                print(f"  {name:<24} dropped {dropped}/{decoder} delayed {delayed} cpu mpv {seconds:.1f} s "
                      f"sway {composited:.1f} s zones {'-' if placed is None else 'yes' if placed else 'NO'}")
        finally:
            os.kill(int(env["SWAY_PID"]), 2)


if __name__ == "__main__":
    main()
