#!/usr/bin/env python3
"""The appliance benchmarks: `upright play` as a kiosk runs it, on a headless sway, with the real
libiio reading a fake sysfs tree (scripts/with-fake-iio.sh).

- End to end, per strategy: an accelerometer value written on the fake device, until a screenshot
  (grim) shows the picture upright. Goal: p95 <= 150 ms (interface), <= 200 ms (surface).
- Soak: SOAK_SECONDS (600) of looping playback (three clips), the device turned every 5 s and a
  burst of 150 control connections every 30 s; RSS, threads and descriptors at warm-up (60 s) and
  at the end, beside plain mpv playing the same files at the same time in a headless sway of its own,
  with a status line on the video as Upright shows one.
  Goal: growth under 1 MB per hour after warm-up, RSS at most plain mpv's plus 30 MB.

  scripts/bench_appliance.py BIN_DIR
"""
import array
import contextlib
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_sensor import make_tree, attitude, WRAP, ROOT  # noqa: E402

# Red over blue: upright when red is above.
CLIPS = ["av://lavfi:color=c=red:size=320x180:rate=25:duration=%d,drawbox=x=0:y=90:w=320:h=90:color=blue:t=fill" % d
         for d in (7, 11, 13)]
PATTERN = CLIPS[0].replace(":duration=7", "")
# Device attitudes (m/s², device frame). Held landscape-left (right edge up), the interface is
# landscape-right, as on iOS.
PORTRAIT, DEVICE_LANDSCAPE_RIGHT, DEVICE_LANDSCAPE_LEFT = (0.3, 9.7, 1.2), (-9.7, 0.2, 1.2), (9.7, 0.2, 1.2)


def stop(p, sig=signal.SIGTERM, timeout=10):
    """Stops a process with `sig`, killed when it has not ended within `timeout` seconds."""
    p.send_signal(sig)
    try:
        p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def start_sway(directory, mode=None):
    os.chmod(os.path.dirname(directory), 0o755)  # sway runs as another user (headless-sway.sh)
    out = subprocess.run([os.path.join(ROOT, 'scripts/headless-sway.sh'), directory] + ([mode] if mode else []),
                         capture_output=True, text=True, check=True).stdout
    return dict(line.split('=', 1) for line in out.split() if '=' in line)


def plain_mpv(env, playlist, *options):
    """Plain mpv looping `playlist` in the sway `env`, the baseline beside Upright: with a status
    line on the video, as Upright shows one (libass and its fonts: about 9 MB)."""
    return subprocess.Popen(['mpv', '--no-config', '--vo=wlshm', '--ao=null', '--loop-playlist=inf', '--really-quiet',
                             '--osd-level=3', '--osd-status-msg=12:00 · ${media-title}'] + list(options) + playlist,
                            env=dict(os.environ, WAYLAND_DISPLAY=env['WAYLAND_DISPLAY'],
                                     XDG_RUNTIME_DIR=env['XDG_RUNTIME_DIR']),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def in_sway(prefix, body):
    """Runs `body(env, directory)` with a headless sway in a new directory (`env`: what a client
    needs to reach it), and removes both afterwards."""
    directory = tempfile.mkdtemp(prefix=prefix)
    os.chmod(directory, 0o755)
    sway = None
    try:
        sway = start_sway(os.path.join(directory, 'sway'))
        body(dict(os.environ, WAYLAND_DISPLAY=sway['WAYLAND_DISPLAY'], XDG_RUNTIME_DIR=sway['XDG_RUNTIME_DIR']),
             directory)
    finally:
        if sway:
            stop_sway(sway, os.path.join(directory, 'sway'))
        shutil.rmtree(directory, ignore_errors=True)


def stop_sway(env, directory):
    try:
        os.kill(int(env['SWAY_PID']), 2)
    except (OSError, KeyError, ValueError):
        pass
    time.sleep(0.3)
    shutil.rmtree(directory, ignore_errors=True)


def screenshot(wayland):
    """grim's PPM as (width, height, pixels)."""
    data = subprocess.run(['grim', '-t', 'ppm', '-'], env=dict(os.environ, WAYLAND_DISPLAY=wayland),
                          capture_output=True).stdout
    parts = data.split(b'\n', 3)
    if len(parts) < 4 or parts[0] != b'P6':
        return None
    w, h = map(int, parts[1].split())
    return w, h, parts[3]


def rgb(shot, x, y):
    w, _, px = shot
    i = (y * w + x) * 3
    return px[i], px[i + 1], px[i + 2]


def red(p):
    return p[0] > 180 and p[1] < 80 and p[2] < 80


def blue(p):
    return p[2] > 180 and p[0] < 80 and p[1] < 80


def upright(shot, orientation, strategy):
    """The picture is upright for the viewer (the same rule as upright-bench --display)."""
    if shot is None:
        return False
    w, h, _ = shot
    if strategy == 'interface':
        ww, hh = (1280, 800) if orientation != 'portrait' else (800, 1280)
        return w == ww and h == hh and red(rgb(shot, w // 2, h // 2 - 120)) and blue(rgb(shot, w // 2, h // 2 + 120))
    at = {'landscape-right': ((600, 640), (200, 640)), 'landscape-left': ((200, 640), (600, 640)),
          'portrait': ((400, 500), (400, 780))}[orientation]
    return w == 800 and red(rgb(shot, *at[0])) and blue(rgb(shot, *at[1]))


def config(directory, strategy, playlist):
    path = os.path.join(directory, 'upright-%s.toml' % strategy)
    with open(path, 'w') as f:
        f.write('[sensor]\nuri = "local:"\n[lock]\nevdev = "none"\n'
                '[scenes.fullscreen]\nsupported = ["portrait", "landscape-left", "landscape-right"]\n'
                'autorotate = true\nstrategy = "%s"\n'
                '[player]\nplaylist = [%s]\n[player.mpv]\nvo = "wlshm"\nao = "null"\n'
                % (strategy, ', '.join('"%s"' % p for p in playlist)))
    return path


def start_upright(bin_dir, tree, env, conf, control):
    penv = dict(os.environ, WAYLAND_DISPLAY=env['WAYLAND_DISPLAY'], SWAYSOCK=env['SWAYSOCK'],
                XDG_RUNTIME_DIR=env['XDG_RUNTIME_DIR'])
    p = subprocess.Popen([WRAP, tree, os.path.join(bin_dir, 'upright'), 'play', '--config', conf, '--control', control],
                         env=penv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        if os.path.exists(control):
            break
        time.sleep(0.05)
    return p


def ctl(bin_dir, control, *words):
    subprocess.run([os.path.join(bin_dir, 'upright'), 'ctl', '--socket', control] + list(words),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def upright_pid(wrapper):
    """The upright process under the namespace wrapper (unshare → sh → exec upright: the same pid)."""
    for _ in range(50):
        out = [str(wrapper.pid)] + subprocess.run(['pgrep', '-P', str(wrapper.pid)], capture_output=True,
                                                  text=True).stdout.split()
        for pid in out:
            kids = subprocess.run(['pgrep', '-P', pid], capture_output=True, text=True).stdout.split()
            for k in [pid] + kids:
                try:
                    if open('/proc/%s/comm' % k).read().strip() == 'upright':
                        return int(k)
                except OSError:
                    pass
        time.sleep(0.1)
    return None


@contextlib.contextmanager
def appliance(prefix):
    """A directory, a fake accelerometer held portrait and a headless sway; the processes added to
    the list it gives end with it, and everything is removed."""
    directory = tempfile.mkdtemp(prefix=prefix)
    tree, dev = make_tree()
    attitude(dev, *PORTRAIT)
    env = start_sway(os.path.join(directory, 'sway'))
    processes = []
    try:
        yield directory, tree, dev, env, processes
    finally:
        for q in processes:
            if q.poll() is None:
                q.terminate()
                q.wait()
        stop_sway(env, os.path.join(directory, 'sway'))
        shutil.rmtree(tree, ignore_errors=True)
        shutil.rmtree(directory, ignore_errors=True)


def end_to_end(bin_dir, strategy):
    with appliance('upright-bench-e2e-') as (directory, tree, dev, env, processes):
        control = os.path.join(directory, 'control.sock')
        p = start_upright(bin_dir, tree, env, config(directory, strategy, [PATTERN]), control)
        processes.append(p)
        ctl(bin_dir, control, 'fullscreen')
        end = time.monotonic() + 10
        while time.monotonic() < end and not upright(screenshot(env['WAYLAND_DISPLAY']), 'portrait', strategy):
            time.sleep(0.05)
        times = []
        for k in range(12):
            target, name = [(DEVICE_LANDSCAPE_LEFT, 'landscape-right'), (PORTRAIT, 'portrait'),
                            (DEVICE_LANDSCAPE_RIGHT, 'landscape-left'), (PORTRAIT, 'portrait')][k % 4]
            time.sleep(0.8)
            t0 = time.monotonic()
            attitude(dev, *target)
            while time.monotonic() - t0 < 5:
                shot = screenshot(env['WAYLAND_DISPLAY'])
                if upright(shot, name, strategy):
                    times.append(time.monotonic() - t0)
                    break
            else:
                if os.environ.get('BENCH_DEBUG') and shot:
                    w, h, _ = shot
                    print('    %s %s: not upright; %dx%d, samples %s' % (strategy, name, w, h,
                          [rgb(shot, x, y) for x, y in [(200, 640), (600, 640), (400, 500), (400, 780)]]))
        return times


def family(pid):
    """pid and its descendants (Upright's mpv runs in a child process of its own)."""
    found = [pid]
    try:
        for tid in os.listdir('/proc/%d/task' % pid):
            with open('/proc/%d/task/%s/children' % (pid, tid)) as f:
                for child in f.read().split():
                    found += family(int(child))
    except OSError:
        pass
    return found


def pages_once(pids):
    """MB of the physical pages resident in any of the processes, each counted once however many
    of them map it (read from /proc/PID/pagemap: the family's own cost, where the sum of RSS counts
    the libraries every process maps again for each)."""
    frames = set()
    for p in pids:
        try:
            ranges = []
            start = end = None
            with open('/proc/%d/smaps' % p) as f:
                for line in f:
                    head = line.split(None, 1)[0]
                    if '-' in head and not head.endswith(':'):
                        a, b = head.split('-')
                        start, end = int(a, 16), int(b, 16)
                    elif head == 'Rss:' and int(line.split()[1]) > 0:
                        ranges.append((start, end))
            with open('/proc/%d/pagemap' % p, 'rb') as f:
                for a, b in ranges:
                    f.seek(a // 4096 * 8)
                    entries = array.array('Q')
                    entries.frombytes(f.read((b - a) // 4096 * 8))
                    frames.update(e & PFN_MASK for e in entries if e & PRESENT)
        except OSError:
            pass
    return len(frames) * 4096 / 1048576


PRESENT = 1 << 63
PFN_MASK = (1 << 55) - 1


def usage(pid, alone=False):
    """RSS (MB), threads, open descriptors, the anonymous part of the RSS (MB: the process's
    own memory; the rest is shared libraries' pages) and the proportional set size (PSS, MB: each
    shared page divided among the processes that map it, so a library two processes of the family
    map is counted once between them) of a process and its children together (`alone`: of the
    process only)."""
    rss = threads = anonymous = fds = pss = 0
    for p in [pid] if alone else family(pid):
        try:
            for line in open('/proc/%d/status' % p):
                if line.startswith('VmRSS:'):
                    rss += int(line.split()[1]) / 1024
                elif line.startswith('Threads:'):
                    threads += int(line.split()[1])
            for line in open('/proc/%d/smaps_rollup' % p):
                if line.startswith('Anonymous:'):
                    anonymous += int(line.split()[1]) / 1024
                elif line.startswith('Pss:'):
                    pss += int(line.split()[1]) / 1024
            fds += len(os.listdir('/proc/%d/fd' % p))
        except OSError:
            if p == pid:
                raise
    return rss, threads, fds, anonymous, pss


def burst(control, n=150):
    """n control clients at once: each connects, asks for the status, some leave without reading."""
    conns = []
    for i in range(n):
        try:
            s = socket.socket(socket.AF_UNIX)
            s.settimeout(2)
            s.connect(control)
            s.sendall(b'{"command": "status"}\n')
            conns.append(s)
        except OSError:
            pass
    for i, s in enumerate(conns):
        try:
            if i % 3:
                s.recv(65536)
        except OSError:
            pass
        s.close()


def soak(bin_dir, seconds):
    """upright play and, beside it in a sway of its own for the same time, plain mpv playing the
    same files; each one's usage after warm-up and at the end."""
    with appliance('upright-bench-soak-') as (directory, tree, dev, env, processes):
        control = os.path.join(directory, 'control.sock')
        p = start_upright(bin_dir, tree, env, config(directory, 'interface', CLIPS), control)
        processes.append(p)
        other = os.path.join(directory, 'mpv-sway')
        os.makedirs(other)
        mpv_env = start_sway(os.path.join(other, 'sway'))
        try:
            mpv = plain_mpv(mpv_env, CLIPS)
            processes.append(mpv)
            pid = upright_pid(p)
            start = time.monotonic()
            warm = None
            k = 0
            attitudes = [DEVICE_LANDSCAPE_LEFT, PORTRAIT, DEVICE_LANDSCAPE_RIGHT, PORTRAIT]
            while time.monotonic() - start < seconds:
                time.sleep(5)
                k += 1
                attitude(dev, *attitudes[k % 4])
                if k % 6 == 0:
                    burst(control)
                if warm is None and time.monotonic() - start >= min(60, seconds / 3):
                    warm = (time.monotonic(), usage(pid), usage(mpv.pid), usage(pid, alone=True))
            return warm, (time.monotonic(), usage(pid), usage(mpv.pid), usage(pid, alone=True))
        finally:
            stop_sway(mpv_env, os.path.join(other, 'sway'))


def ms(xs):
    if not xs:
        return '-'
    s = sorted(xs)
    return 'median %.0f ms, p95 %.0f ms (n=%d)' % (statistics.median(s) * 1e3, s[min(len(s) - 1, int(len(s) * 0.95))] * 1e3,
                                                  len(s))


def main():
    bin_dir = sys.argv[1]
    print('End to end, accelerometer value written → screenshot upright (headless sway, upright play):')
    for strategy, goal in [('interface', 150), ('surface', 200)]:
        print('  %-9s  %s   goal p95 <= %d ms' % (strategy, ms(end_to_end(bin_dir, strategy)), goal))
    seconds = int(os.environ.get('SOAK_SECONDS', '600'))
    print('Soak, %d s: looping playback of 3 clips, a turn every 5 s, 150 control clients every 30 s:' % seconds)
    (t0, u0, m0, a0), (t1, u1, m1, a1) = soak(bin_dir, seconds)

    def per_hour(a, b):
        return (b[0] - a[0]) / max(1e-9, t1 - t0) * 3600

    line = ('  %-12s  RSS %.1f MB after warm-up, %.1f MB at the end (%+.2f MB/h), of it anonymous %.1f → %.1f MB;'
            ' threads %d → %d; fds %d → %d')
    print(line % ('upright play', u0[0], u1[0], per_hour(u0, u1), u0[3], u1[3], u0[1], u1[1], u0[2], u1[2]))
    print(line % ('of it upright', a0[0], a1[0], per_hour(a0, a1), a0[3], a1[3], a0[1], a1[1], a0[2], a1[2]))
    print(line % ('plain mpv', m0[0], m1[0], per_hour(m0, m1), m0[3], m1[3], m0[1], m1[1], m0[2], m1[2]))
    print('  (upright play: the process and its mpv process together; "of it upright": the process alone.'
          ' Plain mpv shows a status line too)')
    print('  goals: growth < 1 MB/h (%s), RSS <= mpv + 30 MB (%s)'
          % ('met' if per_hour(u0, u1) < 1 else 'NOT met', 'met' if u1[0] <= m1[0] + 30 else 'NOT met'))


if __name__ == '__main__':
    main()
