#!/usr/bin/env python3
"""The fault soak: `upright play` as a kiosk runs it (a headless sway, the real libiio on a fake
sysfs tree, the interface strategy, a folder of pictures), the device turned every few seconds
and, between turns, one fault at a time from the mix a kiosk meets:

  control garbage, a 1 MiB line, a burst of 150 clients, silent clients, a good and a bad
  reload (SIGHUP), a playlist file deleted and restored, the sensor removed and restored, the
  output disabled and enabled, the output turned behind Upright's back, sway stopped (SIGINT)
  and killed (SIGKILL, its socket left behind) and started again.

Each fault is checked to be recovered within its limit (2 s; a compositor 5 s after it is back):
the control socket answers, the screen (grim) shows the picture upright for the orientation held,
the output is turned as it should. Resident memory, anonymous memory, threads and descriptors
are sampled every 10 s beside plain mpv playing the same pictures in a sway of its own: for
`upright play` and its mpv process together (the sum of their RSS, and their resident pages
counted once, read from /proc/PID/pagemap: the libraries both map are counted once), and for
the `upright` process alone. At the
end Upright is stopped (SIGTERM) and the output must be back to its original transform.

  SOAK_SECONDS=600 scripts/bench_faults.py BIN_DIR

Everything it made is removed at the end, unless Upright died: then its directory (the log, the
core dump, mpv's log with BENCH_MPV_LOG=1) is kept and named. BENCH_SMAPS=1 keeps the process's
smaps at the end too.

Goals: every fault recovered within its limit, no wrong picture, growth under 1 MB/h after
warm-up (a least-squares line through the samples of the pages counted once), those pages within
plain mpv's + 30 MB, the upright process's threads (less libdispatch's overcommit workers, which
come and go with blocking work) and descriptors back to their warm-up figures and its mpv process's (it starts again at each compositor loss, its threads come and go
with what it plays) no more at the end than at most in the first third of the run, a clean exit
with the output restored.
"""
import collections
import json
import os
import random
import resource
import shutil
import signal
import statistics
import socket
import struct
import subprocess
import sys
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_sensor import attitude, make_tree, WRAP  # noqa: E402
from bench_appliance import (PORTRAIT, DEVICE_LANDSCAPE_LEFT, DEVICE_LANDSCAPE_RIGHT, burst, plain_mpv, screenshot,
                             family, pages_once, start_sway, stop_sway, upright, upright_pid,
                             usage)  # noqa: E402

TURNS = [(DEVICE_LANDSCAPE_LEFT, 'landscape-right', '90'), (PORTRAIT, 'portrait', 'normal'),
         (DEVICE_LANDSCAPE_RIGHT, 'landscape-left', '270')]


def png(path, w=320, h=180):
    """Red over blue, the picture the judge reads."""
    rows = b''.join(b'\0' + (b'\xff\x00\x00' if y < h // 2 else b'\x00\x00\xff') * w for y in range(h))

    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))
                + chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b''))


class Kiosk:
    """The sway, the sensor, Upright and its files; each fault's injection and checks."""

    def __init__(self, bin_dir, directory):
        self.bin_dir, self.directory = bin_dir, directory
        self.sway_dir = os.path.join(directory, 'sway')
        os.chmod(directory, 0o755)
        self.tree, self.dev = make_tree()
        attitude(self.dev, *PORTRAIT)
        self.media = os.path.join(directory, 'media')
        os.makedirs(self.media)
        for name in ['a.png', 'b.png', 'c.png']:
            png(os.path.join(self.media, name))
        self.config = os.path.join(directory, 'upright.toml')
        self.good = ('[sensor]\nuri = "local:"\n[lock]\nevdev = "none"\n[display]\nwait = 60\n'
                     '[scenes.fullscreen]\nsupported = ["portrait", "landscape-left", "landscape-right"]\n'
                     'autorotate = true\nstrategy = "interface"\n'
                     '[player]\nplaylist = ["%s"]\nimage_duration = 2\n[player.mpv]\nvo = "wlshm"\nao = "null"\n%s'
                     % (self.media, ('log-file = "%s/mpv.log"\n' % directory) if os.environ.get('BENCH_MPV_LOG') else ''))
        with open(self.config, 'w') as f:
            f.write(self.good)
        self.control = os.path.join(directory, 'control.sock')
        self.env = start_sway(self.sway_dir)
        penv = dict(os.environ, WAYLAND_DISPLAY=self.env['WAYLAND_DISPLAY'], SWAYSOCK=self.env['SWAYSOCK'],
                    XDG_RUNTIME_DIR=self.env['XDG_RUNTIME_DIR'])
        self.log = open(os.path.join(directory, 'upright.log'), 'w')
        # A crash leaves a core dump in the directory (kept then), for gdb: a trap is a defect.
        penv['SWIFT_BACKTRACE'] = 'enable=no'
        self.wrapper = subprocess.Popen([WRAP, self.tree, os.path.join(bin_dir, 'upright'), 'play', '--config',
                                         self.config, '--control', self.control],
                                        env=penv, stdout=subprocess.DEVNULL, stderr=self.log, cwd=directory,
                                        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CORE,
                                                                              (resource.RLIM_INFINITY,) * 2))
        for _ in range(200):
            if os.path.exists(self.control):
                break
            time.sleep(0.05)
        self.pid = upright_pid(self.wrapper)
        self.held = TURNS[1]
        self.silent = []

    # -- the compositor

    def swaymsg(self, *words):
        return subprocess.run(['swaymsg', '-s', self.env['SWAYSOCK']] + list(words), capture_output=True,
                              text=True).stdout

    def transform(self):
        try:
            outputs = json.loads(self.swaymsg('-t', 'get_outputs', '-r'))
            return outputs[0].get('transform') if outputs else None
        except (ValueError, IndexError):
            return None

    def restart_sway(self, sig):
        pid = int(self.env['SWAY_PID'])
        os.kill(pid, sig)
        for _ in range(100):
            try:
                if open('/proc/%d/stat' % pid).read().split(')')[-1].split()[0] == 'Z':
                    break
            except OSError:
                break
            time.sleep(0.05)
        time.sleep(1)
        # In the same directory: a killed sway's sockets and lock are there, as on a kiosk.
        self.env = start_sway(self.sway_dir)

    # -- Upright

    def request(self, payload, timeout=2.0):
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(timeout)
        try:
            s.connect(self.control)
            s.sendall(payload)
            data = b''
            while not data.endswith(b'\n'):
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            return data.decode(errors='replace')
        except OSError as e:
            return 'error: %s' % e
        finally:
            s.close()

    def status(self):
        reply = self.request(b'{"command": "status"}\n')
        try:
            return json.loads(reply).get('status')
        except ValueError:
            return None

    def shows_held(self):
        return upright(screenshot(self.env['WAYLAND_DISPLAY']), self.held[1], 'interface') \
            and self.transform() == self.held[2]

    def until(self, limit, check):
        """Seconds until `check` holds, or None after `limit`."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < limit:
            if check():
                return time.monotonic() - t0
            time.sleep(0.05)
        return None

    def recovered(self, limit=2.0):
        return self.until(limit, lambda: self.status() is not None and self.shows_held())

    def turn(self, k):
        self.held = TURNS[k % len(TURNS)]
        attitude(self.dev, *self.held[0])
        return self.until(3.0, self.shows_held)

    # -- the faults: each returns the time to recovery (None: not within its limit)

    def garbage(self):
        reply = self.request(bytes(random.randrange(1, 256) for _ in range(300)).replace(b'\n', b' ') + b'\n')
        reply += self.request(b'{"command": "status",}\n')
        return self.recovered() if '"ok": false' in reply else None

    def long_line(self):
        reply = self.request(b'x' * (1 << 20) + b'\n', timeout=5)
        return self.recovered() if 'error' in reply or 'too long' in reply else None

    def burst(self):
        burst(self.control)
        return self.recovered()

    def silent_clients(self):
        for s in self.silent:
            s.close()
        self.silent = []
        for _ in range(20):
            s = socket.socket(socket.AF_UNIX)
            s.connect(self.control)
            self.silent.append(s)
        return self.recovered()

    def reload(self, good):
        with open(self.config, 'w') as f:
            f.write(self.good + ('# reloaded %f\n' % time.time() if good else '[player\nbroken = \n'))
        os.kill(self.pid, signal.SIGHUP)
        time.sleep(0.5)
        took = self.recovered()
        with open(self.config, 'w') as f:
            f.write(self.good)
        return took

    def playlist_file(self):
        path = os.path.join(self.media, 'b.png')
        saved = os.path.join(self.directory, 'b.png')
        shutil.move(path, saved)
        time.sleep(2)
        shutil.move(saved, path)
        return self.recovered()

    def sensor(self):
        """Unplugged (its sysfs directory gone) for 2 s: the status says so, then reads it again."""
        away = os.path.join(self.tree, 'unplugged')
        os.rename(self.dev, away)
        gone = self.until(3.0, lambda: 'reading' not in self.sensor_health())
        os.rename(away, self.dev)
        back = self.until(5.0, lambda: 'reading' in self.sensor_health())
        return back if gone is not None and back is not None and self.recovered() is not None else None

    def sensor_health(self):
        return (self.status() or {}).get('sensor', '')

    def output_off_on(self):
        self.swaymsg('output', 'HEADLESS-1', 'disable')
        time.sleep(1)
        self.swaymsg('output', 'HEADLESS-1', 'enable')
        return self.recovered()

    def foreign_turn(self):
        self.swaymsg('output', 'HEADLESS-1', 'transform', '180')
        return self.recovered()

    def sway_restart(self, sig):
        self.restart_sway(sig)
        return self.recovered(5.0)


FAULTS = [
    ('control garbage', 2, Kiosk.garbage), ('1 MiB line', 2, Kiosk.long_line), ('burst of 150', 2, Kiosk.burst),
    ('silent clients', 2, Kiosk.silent_clients), ('good reload', 2, lambda k: k.reload(True)),
    ('bad reload', 2, lambda k: k.reload(False)), ('playlist file gone', 2, Kiosk.playlist_file),
    ('sensor gone', 5, Kiosk.sensor), ('output off and on', 2, Kiosk.output_off_on),
    ('foreign turn', 2, Kiosk.foreign_turn), ('sway SIGINT', 5, lambda k: k.sway_restart(signal.SIGINT)),
    ('sway SIGKILL', 5, lambda k: k.sway_restart(signal.SIGKILL)),
]


CHECKPOINT = 1800  # a longer soak reports its first 30 minutes too


def report(results, wrong_at, turns, grown, samples, ends, exit, until):
    """Prints the soak's figures up to `until` seconds: faults, wrong pictures, memory, and (with
    `ends` and `exit`, the end of the run) threads, descriptors and the exit."""
    recovered_all = True
    for name, limit, _ in FAULTS:
        r = [x for t, x in results[name] if t <= until]
        ok = [x for x in r if x is not None]
        recovered_all &= len(ok) == len(r)
        print('  %-18s %3d/%-3d recovered within %d s%s' % (name, len(ok), len(r), limit,
              ', slowest %.2f s' % max(ok) if ok else ''))
    wrong = sum(1 for t in wrong_at if t <= until)
    print('  turns with the wrong picture or transform after 3 s: %d of %d' % (wrong, turns))
    if grown is not None:
        print('  the upright process\'s anonymous memory grown across each kind of fault after warm-up (MB): '
              + ', '.join('%s %+.1f' % (n, grown.get(n, 0.0)) for n, _, _ in FAULTS))
    window = {key: [(t, v) for t, v in values if t <= until] for key, values in samples.items()}

    def span(key):
        w = window.get(key) or [(0, 0.0)]
        return w[0][1], w[-1][1]

    print('  upright play and its mpv process, resident pages counted once: median %.1f MB (%.1f → %.1f),'
          ' %+.2f MB/h after warm-up; the sum of their RSS: median %.1f MB, %+.2f MB/h'
          % ((median(window.get('once')),) + span('once') + (slope(window.get('once', [])),
             median(window.get('upright')), slope(window.get('upright', [])))))
    print('  the upright process alone: RSS %.1f → %.1f MB (%+.2f MB/h), anonymous %.1f → %.1f MB (%+.2f MB/h)'
          % (span('alone') + (slope(window.get('alone', [])),) + span('alone-anon')
             + (slope(window.get('alone-anon', [])),)))
    print('  plain mpv: resident pages median %.1f MB (%.1f → %.1f), %+.2f MB/h'
          % ((median(window.get('mpv-once')),) + span('mpv-once') + (slope(window.get('mpv-once', [])),)))
    growth = slope(window.get('once', []))
    resident = median(window.get('once')) <= median(window.get('mpv-once')) + 30
    goals = [('every fault recovered within its limit', recovered_all), ('no wrong picture', wrong == 0),
             ('growth < 1 MB/h', growth < 1), ('resident <= mpv + 30 MB (medians)', resident)]
    if ends:
        end_u, end_m, bu, bm = ends
        code, restored = exit
        alone_threads, alone_fds = span('alone-threads'), span('alone-fds')
        child = [v for _, v in window.get('child-threads', [])]
        child_fds = [v for _, v in window.get('child-fds', [])]
        # The mpv process starts again at each compositor loss, and its threads come and go with
        # what it plays (a decoder's, the demuxer's): the first third of the samples after warm-up
        # say how many it has at most; a leak would carry the last ones beyond that.
        early = child[:max(1, len(child) // 3)] or [0]
        early_fds = child_fds[:max(1, len(child_fds) // 3)] or [0]
        print('  the upright process: threads %d → %d (less libdispatch\'s overcommit workers), fds %d → %d; its mpv process: threads %d–%d over the run'
              ' (at most %d in the first third, %d at the end), fds %d–%d (at most %d in the first third, %d at'
              ' the end); plain mpv: threads %d → %d, fds %d → %d'
              % (alone_threads + alone_fds + (min(child or [0]), max(child or [0]), max(early),
                 child[-1] if child else 0, min(child_fds or [0]), max(child_fds or [0]), max(early_fds),
                 child_fds[-1] if child_fds else 0, bm[1], end_m[1], bm[2], end_m[2])))
        print('  exit: status %s, output %s at the end' % (code, restored))
        goals += [('threads and fds back', alone_threads[1] <= alone_threads[0] and alone_fds[1] <= alone_fds[0]
                   and (not child or child[-1] <= max(early)) and (not child_fds or child_fds[-1] <= max(early_fds))),
                  ('clean exit, output restored', code == 0 and restored == 'normal')]
    print('  goals: ' + '; '.join('%s: %s' % (g, 'met' if ok else 'NOT met') for g, ok in goals))


def thread_names(pid):
    """The process's threads by name (libdispatch's and Swift's pools come and go by use)."""
    names = collections.Counter()
    try:
        for tid in os.listdir('/proc/%d/task' % pid):
            with open('/proc/%d/task/%s/comm' % (pid, tid)) as f:
                names[f.read().strip()] += 1
    except OSError:
        pass
    return names


def steady_threads(pid):
    """The process's threads less libdispatch's overcommit workers, which it starts for blocking
    work and ends when idle (a count that includes them says when one happened to run)."""
    return sum(n for name, n in thread_names(pid).items() if not name.endswith('overcommit'))


def alive_usage(pid, alone=False):
    try:
        return usage(pid, alone)
    except OSError:
        return None


def slope(samples):
    """MB per hour of the line through (seconds, MB) that the Theil-Sen estimator fits: the median
    of the slopes between every two samples, so that the moments when mpv holds a picture or two
    more than usual (tens of MB for a few seconds) do not tilt it as they tilt a least-squares line."""
    pairs = [(v2 - v1) / (t2 - t1) for i, (t1, v1) in enumerate(samples) for t2, v2 in samples[i + 1:] if t2 > t1]
    return statistics.median(pairs) * 3600 if pairs else 0.0


def median(samples):
    return statistics.median(v for _, v in samples) if samples else 0.0


def main():
    bin_dir = os.path.abspath(sys.argv[1])
    seconds = int(os.environ.get('SOAK_SECONDS', '600'))
    warmup = min(180, seconds / 3)
    random.seed(7)
    directory = os.path.join('/tmp', 'upright-bench-faults-%d' % os.getpid())
    os.makedirs(directory)
    kiosk = None
    mpv = mpv_env = None
    try:
        kiosk = Kiosk(bin_dir, directory)
        mpv_dir = os.path.join(directory, 'mpv-sway')
        os.makedirs(mpv_dir)
        mpv_env = start_sway(os.path.join(mpv_dir, 'sway'))
        mpv = plain_mpv(mpv_env, [kiosk.media], '--image-display-duration=2')
        subprocess.run([os.path.join(bin_dir, 'upright'), 'ctl', '--socket', kiosk.control, 'fullscreen'],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        start = time.monotonic()
        results = {name: [] for name, _, _ in FAULTS}
        wrong = turns = 0
        wrong_at, turn_times = [], []
        samples = {'upright': [], 'mpv': []}
        baseline = None
        names_base = None
        last_sample = -10.0
        k = 0
        died = None
        grown = {}
        while time.monotonic() - start < seconds:
            if kiosk.wrapper.poll() is not None:
                died = 'upright play ended with status %s after %.0f s' % (kiosk.wrapper.returncode,
                                                                           time.monotonic() - start)
                break
            turns += 1
            turn_times.append(time.monotonic() - start)
            if kiosk.turn(k) is None:
                wrong += 1
                wrong_at.append(time.monotonic() - start)
            name, limit, fault = FAULTS[k % len(FAULTS)]
            before = alive_usage(kiosk.pid)
            before_alone = alive_usage(kiosk.pid, alone=True)
            took = fault(kiosk)
            after = alive_usage(kiosk.pid)
            after_alone = alive_usage(kiosk.pid, alone=True)
            if before is None or after is None or before_alone is None or after_alone is None:
                continue  # ended meanwhile: said at the top of the loop
            results[name].append((time.monotonic() - start, took if took is not None and took <= limit else None))
            if time.monotonic() - start >= warmup:
                grown[name] = grown.get(name, 0.0) + after_alone[3] - before_alone[3]
            k += 1
            now = time.monotonic() - start
            if now - last_sample >= 10:
                last_sample = now
                u, m = after, usage(mpv.pid)
                if now >= warmup:
                    if baseline is None:
                        names_base = thread_names(kiosk.pid)
                    baseline = baseline or (u, m)
                    alone = usage(kiosk.pid, alone=True)
                    children = [alive_usage(p, alone=True) for p in family(kiosk.pid)[1:]]
                    children = [c for c in children if c]
                    for key, value in (('upright', u[0]), ('mpv', m[0]), ('once', pages_once(family(kiosk.pid))),
                                       ('mpv-once', pages_once([mpv.pid])), ('alone', alone[0]),
                                       ('alone-anon', alone[3]), ('alone-threads', steady_threads(kiosk.pid)),
                                       ('alone-fds', alone[2])):
                        samples.setdefault(key, []).append((now, value))
                    if children:
                        samples.setdefault('child-threads', []).append((now, sum(c[1] for c in children)))
                        samples.setdefault('child-fds', []).append((now, sum(c[2] for c in children)))
        if died:
            print('Fault soak: %s; its log: %s' % (died, kiosk.log.name))
            for name, limit, _ in FAULTS:
                ok = [x for _, x in results[name] if x is not None]
                print('  %-18s %2d/%-2d recovered within %d s%s' % (name, len(ok), len(results[name]), limit,
                      ', slowest %.2f s' % max(ok) if ok else ''))
            print('  turns with the wrong picture or transform after 3 s: %d of %d' % (wrong, turns))
            os.environ['BENCH_KEEP'] = '1'
            return
        for s in kiosk.silent:
            s.close()
        time.sleep(35)  # the silent clients' 30 s idle limit, for the descriptors' count
        end_u, end_m = usage(kiosk.pid), usage(mpv.pid)
        names_end = thread_names(kiosk.pid)
        alone = usage(kiosk.pid, alone=True)
        children = [c for c in (alive_usage(p, alone=True) for p in family(kiosk.pid)[1:]) if c]
        samples.setdefault('alone-threads', []).append((seconds, steady_threads(kiosk.pid)))
        samples.setdefault('alone-fds', []).append((seconds, alone[2]))
        if children:
            samples.setdefault('child-threads', []).append((seconds, sum(c[1] for c in children)))
            samples.setdefault('child-fds', []).append((seconds, sum(c[2] for c in children)))
        bu, bm = baseline or (end_u, end_m)
        if os.environ.get('BENCH_SMAPS'):
            shutil.copy('/proc/%d/smaps' % kiosk.pid, os.path.join(directory, 'smaps'))
            os.environ['BENCH_KEEP'] = '1'
        os.kill(kiosk.pid, signal.SIGTERM)
        try:
            kiosk.wrapper.wait(timeout=15)
            code = kiosk.wrapper.returncode
        except subprocess.TimeoutExpired:
            code = None
        restored = kiosk.transform()

        print('Fault soak, %d s (warm-up %d s): %d turns, %d faults of %d kinds, one at a time:'
              % (seconds, warmup, turns, k, len(FAULTS)))
        report(results, wrong_at, turns, grown, samples, (end_u, end_m, bu, bm), (code, restored), seconds)
        if names_base is not None and names_end != names_base:
            more = sorted((names_end - names_base).elements())
            fewer = sorted((names_base - names_end).elements())
            print('  the upright process\'s threads by name, warm-up → end: %s%s' % (
                ('more: ' + ', '.join(more)) if more else '', ('; fewer: ' + ', '.join(fewer)) if fewer else ''))
        if seconds > CHECKPOINT:
            print('The same soak\'s first %d s:' % CHECKPOINT)
            report(results, wrong_at, sum(1 for t in turn_times if t <= CHECKPOINT), None, samples, None, None,
                   CHECKPOINT)
    finally:
        if kiosk:
            if kiosk.wrapper.poll() is None:
                kiosk.wrapper.kill()
            try:
                os.kill(int(kiosk.env['SWAY_PID']), signal.SIGINT)
            except (OSError, ValueError):
                pass
            shutil.rmtree(kiosk.tree, ignore_errors=True)
        if mpv and mpv.poll() is None:
            mpv.terminate()
            mpv.wait()
        if mpv_env:
            stop_sway(mpv_env, os.path.join(directory, 'mpv-sway', 'sway'))
        time.sleep(0.5)
        if os.environ.get('BENCH_KEEP'):
            print('  kept: %s' % directory)
        else:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == '__main__':
    main()
