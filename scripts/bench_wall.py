#!/usr/bin/env python3
"""A video wall in step: three `upright play` nodes of one `[sync]` group, each on its own headless
sway (640x360), one mosquitto broker on loopback, a clip whose frames carry their number (16
blocks across its top quarter). The three screens are sampled together (three grim processes at
once; each sample's spread of capture times is reported) and the counters read from the
screenshots, not from mpv. The inter-screen offset of a sample is the largest difference between
two screens' frames. Beside it in the same run: plain mpv on each screen, started together with
no correction; and the group with one node started 10 s late.

Goal: the same frame on every screen in most samples (median 0) and p95 at most one frame (33 ms
at 30 fps).

With `DURATION=SECONDS` it runs one long series instead: the three nodes of the group, the second
one with all its clocks 1000 ppm fast (libfaketime's rate `x1.001`; its timers kept by
scripts/faketime_timers.c, preloaded first: libfaketime 0.9.10 alone stops a Swift program's
timers at a rate), the third one's system clock 200 ms ahead (libfaketime, a constant offset),
sampled every 10 s; the first and the last fifth side by side, and the offsets the second and
third nodes estimate (`ctl status`).

Then a rogue on the broker, without the group's key (mosquitto_sub and mosquitto_pub): it captures every message of the
group for 15 s, replays each one 5 s and 30 s later (retained as it came), forges each with the
sender replaced by `!` and by `0`, sends garbage and an empty retained payload on every topic it
saw, and for a minute acts as a member (beats as `!` and `0`, answers every ping with a forged
pong, each node given another offset). The screens are sampled throughout; each node's `ctl
status` is read every second (its reference, orientation, last correction, rejected count).
After the rogue has gone (its retained junk left on the broker) the third node is restarted and
the time until it shows the others' frame again is measured.

  SAMPLES=120 scripts/bench_wall.py BIN_DIR
  ROGUE_ONLY=1 scripts/bench_wall.py BIN_DIR
  DURATION=1800 scripts/bench_wall.py BIN_DIR
"""
import concurrent.futures
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_appliance import ROOT, stop, stop_sway  # noqa: E402

FPS = 30
SIZE = (640, 360)
ROUND = 3600  # frames in the clip: 120 s


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def counter_clip(path):
    expression = "if(lt(Y,H/4),255*mod(floor(N/pow(2,floor(X*16/W))),2),128)"
    subprocess.run(['ffmpeg', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i',
                    'color=c=gray:s=%dx%d:r=%d:d=%d' % (SIZE[0], SIZE[1], FPS, ROUND // FPS),
                    '-vf', "geq=lum='%s':cb=128:cr=128,format=yuv420p" % expression,
                    '-c:v', 'mpeg4', '-q:v', '2', '-g', str(FPS), path], check=True)


def start_sway(directory):
    out = subprocess.run([os.path.join(ROOT, 'scripts/headless-sway.sh'), directory, '%dx%d' % SIZE],
                         capture_output=True, text=True, check=True).stdout
    return dict(line.split('=', 1) for line in out.split() if '=' in line)


def grab(sway):
    """(when grim was started, the frame number the screen shows or None)."""
    start = time.monotonic()
    data = subprocess.run(['grim', '-t', 'ppm', '-'], env=dict(os.environ, WAYLAND_DISPLAY=sway['WAYLAND_DISPLAY']),
                          capture_output=True).stdout
    parts = data.split(b'\n', 3)
    if len(parts) < 4 or parts[0] != b'P6':
        return start, None
    w, h = map(int, parts[1].split())
    px = parts[3]
    n = 0
    y = h // 8
    for b in range(16):
        x = (2 * b + 1) * w // 32
        g = px[(y * w + x) * 3 + 1]
        if g > 192:
            n |= 1 << b
        elif g > 64:
            return start, None
    return start, n


def offsets(sways, samples, pool):
    """Each sample's largest difference in frames between two screens, and the spread of the
    grims' start times (ms)."""
    out, spreads = [], []
    for _ in range(samples):
        shots = list(pool.map(grab, sways))
        frames = [f for _, f in shots]
        if None in frames:
            continue
        spreads.append((max(t for t, _ in shots) - min(t for t, _ in shots)) * 1000)
        worst = 0
        for i in range(len(frames)):
            for j in range(i + 1, len(frames)):
                d = abs(frames[i] - frames[j]) % ROUND
                worst = max(worst, min(d, ROUND - d))
        out.append(worst)
        if worst > 1 and os.environ.get('SHOW_OUTLIERS'):
            print('    outlier: frames %s, grims started %s ms apart' % (frames, ['%.1f' % ((t - shots[0][0]) * 1000) for t, _ in shots]))
        time.sleep(0.1)
    return out, spreads


def report(name, frames, spreads):
    if not frames:
        print('  %-44s no sample could be read' % name)
        return
    s = sorted(frames)
    p95 = s[min(len(s) - 1, int(round(0.95 * (len(s) - 1))))]
    ms = 1000 / FPS
    same = sum(1 for f in frames if f == 0)
    print('  %-44s median %3.0f ms, p95 %4.0f ms, max %5.0f ms; same frame on all three %3d of %d (grims %.1f ms apart, median)'
          % (name, s[len(s) // 2] * ms, p95 * ms, s[-1] * ms, same, len(frames), statistics.median(spreads)))


LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1'
AHEAD = {'LD_PRELOAD': LIBFAKETIME, 'FAKETIME': '+0.2', 'FAKETIME_DONT_RESET': '1',
         'FAKETIME_DONT_FAKE_MONOTONIC': '1'}


def fast_clocks(directory):
    """The environment of a process whose every clock runs 1000 ppm fast."""
    timers = os.path.join(directory, 'faketime_timers.so')
    subprocess.run(['cc', '-O2', '-shared', '-fPIC', '-o', timers,
                    os.path.join(ROOT, 'scripts/faketime_timers.c')], check=True)
    return {'LD_PRELOAD': timers + ' ' + LIBFAKETIME, 'FAKETIME': '+0 x1.001', 'FAKETIME_DONT_RESET': '1'}


def upright_node(bin_dir, directory, sway, device, clip, port, group=True, extra_env=None, extra=''):
    conf = os.path.join(directory, device + '.toml')
    with open(conf, 'w') as f:
        # The panel's own orientation: nothing turned, the picture filling the screen as plain mpv's.
        f.write('[app]\nlaunch = "landscape-right"\n[display]\nnatural = "landscape-right"\n'
                '[lock]\nevdev = "none"\n[player]\nplaylist = ["%s"]\n[player.mpv]\nfullscreen = "yes"\n'
                '[mqtt]\nurl = "mqtt://127.0.0.1:%d"\ndevice = "%s"\ndiscovery = false\nscreenshot_interval = 0\n'
                % (clip, port, device))
        f.write(extra)
        if group:
            # Sealed, as a wall on a shared broker should be: the same key on every node.
            key = os.path.join(directory, 'wall.key')
            if not os.path.exists(key):
                fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                os.write(fd, os.urandom(32))
                os.close(fd)
            f.write('[sync]\ngroup = "bench-wall"\nkey_file = "%s"\n' % key)
    env = dict(os.environ, WAYLAND_DISPLAY=sway['WAYLAND_DISPLAY'], XDG_RUNTIME_DIR=sway['XDG_RUNTIME_DIR'],
               SWAYSOCK=sway['SWAYSOCK'], **(extra_env or {}))
    return subprocess.Popen([os.path.join(bin_dir, 'upright'), 'play', '--config', conf, '--uri', 'none', '--vo',
                             'wlshm', '--control', os.path.join(directory, device + '.sock')],
                            env=env, stdout=subprocess.DEVNULL, stderr=open(os.path.join(directory, device + '.log'), 'w'))


def plain_mpv(sway, clip):
    env = dict(os.environ, WAYLAND_DISPLAY=sway['WAYLAND_DISPLAY'], XDG_RUNTIME_DIR=sway['XDG_RUNTIME_DIR'])
    return subprocess.Popen(['mpv', '--no-config', '--vo=wlshm', '--ao=null', '--fs', '--loop-file=inf',
                             '--really-quiet', clip], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def long_run(bin_dir, directory, sways, clip, port, duration, pool, processes):
    clocks = [None, fast_clocks(directory), AHEAD]
    procs = [upright_node(bin_dir, directory, s, 'wall-%d' % n, clip, port, extra_env=clocks[n])
             for n, s in enumerate(sways)]
    processes.extend(procs)
    time.sleep(10)
    end = time.monotonic() + duration
    samples = []
    while time.monotonic() < end:
        frames, spreads = offsets(sways, 1, pool)
        if frames:
            samples.append((time.monotonic(), frames[0], spreads[0]))
        time.sleep(10)
    fifth = max(1, len(samples) // 5)
    print('%d s, the second node\'s clocks 1000 ppm fast, the third\'s system clock 200 ms ahead (libfaketime), '
          'a sample every 10 s:' % duration)
    report('first fifth', [f for _, f, _ in samples[:fifth]], [s for _, _, s in samples[:fifth]])
    report('last fifth', [f for _, f, _ in samples[-fifth:]], [s for _, _, s in samples[-fifth:]])
    report('all', [f for _, f, _ in samples], [s for _, _, s in samples])
    for node, clock in enumerate(['its clocks true', 'its clocks 1000 ppm fast', 'its system clock 200 ms ahead']):
        sync = sync_status(bin_dir, directory, node)
        print('  node %d (%s) at the end: offset to the group %s ms, error %s ms, speed %s, last correction %s'
              % (node + 1, clock, sync.get('offset_ms'), sync.get('error_ms'), sync.get('speed'), sync.get('correction')))
    for p in procs:
        stop(p)
        processes.remove(p)


def node_status(bin_dir, directory, node):
    """The node's `ctl status`."""
    status = subprocess.run([os.path.join(bin_dir, 'upright'), 'ctl', '--socket',
                             os.path.join(directory, 'wall-%d.sock' % node), 'status'],
                            capture_output=True, text=True).stdout
    try:
        return json.loads(status).get('status') or {}
    except ValueError:
        return {}


def sync_status(bin_dir, directory, node):
    """The node's `sync` part of `ctl status`."""
    return node_status(bin_dir, directory, node).get('sync') or {}


class Rogue:
    """A client of the broker without the group's key: it hears every message of the group
    (mosquitto_sub, payloads in hex) and publishes anything (mosquitto_pub, the payload on its
    standard input)."""

    def __init__(self, port, base):
        self.port = port
        self.heard = []
        self.lock = threading.Lock()
        self.sub = subprocess.Popen(['mosquitto_sub', '-p', str(port), '-t', base + '/#', '-F', '%r %t %x'],
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self):
        for line in self.sub.stdout:
            parts = line.rstrip('\n').split(' ', 2)
            if len(parts) >= 2:
                payload = bytes.fromhex(parts[2]) if len(parts) == 3 else b''
                with self.lock:
                    self.heard.append((parts[1], payload, parts[0] == '1'))

    def take(self):
        with self.lock:
            out, self.heard = self.heard, []
        return out

    def publish(self, topic, payload, retain=False):
        if isinstance(payload, str):
            payload = payload.encode()
        subprocess.run(['mosquitto_pub', '-p', str(self.port), '-t', topic, '-s'] + (['-r'] if retain else []),
                       input=payload, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(self):
        stop(self.sub)


def rogue_run(bin_dir, directory, sways, clip, port, pool, processes):
    # A short clip scene, played by the wall once while the rogue listens: its word is captured.
    promo = os.path.join(directory, 'promo.mkv')
    subprocess.run(['ffmpeg', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i',
                    'testsrc=size=%dx%d:rate=%d:duration=2' % (SIZE[0], SIZE[1], FPS), '-c:v', 'mpeg4', promo],
                   check=True)
    os.chmod(promo, 0o644)
    extra = '[scenes.promo]\nclip = "%s"\nsupported = ["landscape-right"]\n' % promo
    procs = [upright_node(bin_dir, directory, s, 'wall-%d' % n, clip, port, extra=extra) for n, s in enumerate(sways)]
    processes.extend(procs)
    time.sleep(10)
    base = 'upright/sync/bench-wall'
    names = ['wall-%d' % n for n in range(3)]
    rogue = Rogue(port, base)
    frames, statuses, done = [], [], threading.Event()

    def watch():
        while not done.is_set():
            f, _ = offsets(sways, 1, pool)
            frames.extend(f)
            statuses.append([node_status(bin_dir, directory, n) for n in range(3)])
            time.sleep(0.5)
    watcher = threading.Thread(target=watch)
    watcher.start()
    start = time.monotonic()
    time.sleep(5)
    subprocess.run([os.path.join(bin_dir, 'upright'), 'ctl', '--socket', os.path.join(directory, 'wall-0.sock'),
                    'play', 'promo'], capture_output=True)
    time.sleep(10)
    captured = rogue.take()
    after_capture = len(statuses)
    print('  the rogue captured %d messages in 15 s' % len(captured))

    def replay():
        for topic, payload, retain in captured:
            rogue.publish(topic, payload, retain=retain)

    def at(t, action):
        wait = start + 15 + t - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        action()
    at(5, replay)
    for name in ('!', '0'):
        for topic, payload, retain in captured:
            forged = topic
            for device in names:
                forged = forged.replace('/%s/' % device, '/%s/' % name)
                if forged.endswith('/' + device):
                    forged = forged[:-len(device)] + name
            rogue.publish(forged, payload, retain=retain)
    # Words of its own under every name: a turn, a clip, a schedule, a pong.
    for name in names + ['!', '0']:
        rogue.publish('%s/%s/orientation' % (base, name), 'portrait %.3f' % time.time(), retain=True)
        rogue.publish('%s/%s/clip' % (base, name), '%.3f promo' % (time.time() + 1))
        rogue.publish('%s/%s/schedule' % (base, name), '0 %.3f' % (time.time() - 7), retain=True)
    for topic in sorted({t for t, _, _ in captured}):
        rogue.publish(topic, os.urandom(64))
        rogue.publish(topic, b'S1 1 ' + b'0' * 64 + b' junk')
        rogue.publish(topic, b'', retain=True)
    # A member for a minute: beats under the least names, a forged pong for every ping.
    member_end = time.monotonic() + 60
    replayed_late = False
    while time.monotonic() < member_end:
        for name in ('!', '0'):
            rogue.publish('%s/%s/beat' % (base, name), 'rogue-mark')
        for topic, payload, _ in rogue.take():
            if '/ping/' not in topic:
                continue
            parts = topic.split('/')
            sender, target = parts[-3], parts[-1]
            words = payload.decode(errors='replace').split(' ')
            offset = 1000.0 * (names.index(sender) + 1) if sender in names else 3600.0
            ident, sent = (words[3], words[4]) if words[0] == 'S1' and len(words) >= 5 else (words[0], words[-1])
            forged = '%s %s %.6f %.6f' % (ident, sent, time.time() + offset, time.time() + offset)
            rogue.publish('%s/%s/pong/%s' % (base, target, sender), forged)
            rogue.publish('%s/%s/pong/%s' % (base, target, sender), 'S1 %.6f %s %s' % (time.time(), '0' * 64, forged))
        if not replayed_late and time.monotonic() >= start + 45:
            replay()
            replayed_late = True
        time.sleep(0.2)
    rogue.stop()
    time.sleep(2)
    done.set()
    watcher.join()
    ms = 1000 / FPS
    s = sorted(frames)
    if s:
        p95 = s[min(len(s) - 1, int(round(0.95 * (len(s) - 1))))]
        print('  through the rogue\'s %d s: %d samples, median %.0f ms, p95 %.0f ms, max %.0f ms apart; '
              'same frame on all three %d of %d'
              % (time.monotonic() - start, len(s), s[len(s) // 2] * ms, p95 * ms, s[-1] * ms,
                 sum(1 for f in frames if f == 0), len(frames)))
    for n in range(3):
        full = [st[n] for st in statuses[after_capture + 2:] if st[n]]
        seen = [x.get('sync') or {} for x in full]
        references = sorted({x.get('reference') for x in seen if x.get('reference')})
        turned = sorted({x.get('orientation') for x in seen if x.get('orientation')})
        seeks = sorted({x.get('correction') for x in seen if 'seek' in (x.get('correction') or '')})
        clips = sum(1 for x in full if x.get('clip'))
        interfaces = sorted({x.get('interface') for x in full if x.get('interface')})
        played = sum(1 for st in statuses[:after_capture] if st[n] and st[n].get('clip'))
        last = seen[-1] if seen else {}
        print('  node %d (after the capture, %d looks): references %s, interface %s, wall orientation %s, seeks %s, '
              'looks with a clip %d (during the capture %d); rejected %s (last: %s)'
              % (n + 1, len(full), references, interfaces, turned or 'none', seeks or 'none', clips, played,
                 last.get('rejected'), last.get('last_rejected')))
    # The third node restarted, the rogue's retained junk still on the broker.
    stop(procs[2])
    processes.remove(procs[2])
    procs[2] = upright_node(bin_dir, directory, sways[2], 'wall-2', clip, port)
    processes.append(procs[2])
    restarted = time.monotonic()
    back, run = None, 0
    while time.monotonic() - restarted < 30 and run < 3:
        # In step: the new process knows its reference and shows the others' frame, three looks in a row.
        known = sync_status(bin_dir, directory, 2).get('reference')
        f, _ = offsets(sways, 1, pool)
        if known and f and f[0] <= 1:
            run += 1
            back = back or time.monotonic() - restarted
        else:
            back, run = None, 0
    late = sync_status(bin_dir, directory, 2)
    print('  the third node restarted after the rogue left: the others\' frame after %s s; reference %s, '
          'orientation %s, rejected %s'
          % ('%.1f' % back if back is not None else 'more than 30', late.get('reference'), late.get('orientation'),
             late.get('rejected')))
    for p in procs:
        stop(p)
        processes.remove(p)


def main():
    bin_dir = os.path.abspath(sys.argv[1])
    samples = int(os.environ.get('SAMPLES', '120'))
    directory = tempfile.mkdtemp(prefix='upright-bench-wall-')
    os.chmod(directory, 0o755)
    sways, processes = [], []
    broker = None
    pool = concurrent.futures.ThreadPoolExecutor(3)
    try:
        clip = os.path.join(directory, 'counter.mkv')
        counter_clip(clip)
        os.chmod(clip, 0o644)
        port = free_port()
        with open(os.path.join(directory, 'mosquitto.conf'), 'w') as f:
            f.write('listener %d 127.0.0.1\nallow_anonymous true\n' % port)
        broker = subprocess.Popen(['/usr/sbin/mosquitto', '-c', os.path.join(directory, 'mosquitto.conf')],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for n in range(3):
            sways.append(start_sway(os.path.join(directory, 'sway%d' % n)))
        print('A wall of three screens (headless sway %dx%d each), a %d fps counter clip, %d samples per series:'
              % (SIZE[0], SIZE[1], FPS, samples))

        def series(name, start, settle):
            procs = start()
            processes.extend(procs)
            time.sleep(settle)
            frames, spreads = offsets(sways, samples, pool)
            report(name, frames, spreads)
            for p in procs:
                stop(p)
                processes.remove(p)
            time.sleep(1)

        if os.environ.get('ROGUE_ONLY'):
            print('Upright, one [sync] group sealed with its key, and a rogue on the broker without it:')
            rogue_run(bin_dir, directory, sways, clip, port, pool, processes)
            return
        duration = int(os.environ.get('DURATION', '0'))
        if duration:
            long_run(bin_dir, directory, sways, clip, port, duration, pool, processes)
            return
        series('plain mpv, started together, no correction',
               lambda: [plain_mpv(s, clip) for s in sways], 8)
        series('Upright, one [sync] group, started together',
               lambda: [upright_node(bin_dir, directory, s, 'wall-%d' % n, clip, port) for n, s in enumerate(sways)], 10)

        def late():
            first = [upright_node(bin_dir, directory, s, 'wall-%d' % n, clip, port) for n, s in enumerate(sways[:2])]
            time.sleep(10)
            return first + [upright_node(bin_dir, directory, sways[2], 'wall-2', clip, port)]
        series('Upright, the third node started 10 s late', late, 8)

        def late_plain():
            first = [plain_mpv(s, clip) for s in sways[:2]]
            time.sleep(10)
            return first + [plain_mpv(sways[2], clip)]
        series('plain mpv, the third started 10 s late', late_plain, 5)
        print('Upright, one [sync] group sealed with its key, and a rogue on the broker without it:')
        rogue_run(bin_dir, directory, sways, clip, port, pool, processes)
    finally:
        for p in processes:
            stop(p)
        if broker:
            stop(broker)
        for n, s in enumerate(sways):
            stop_sway(s, os.path.join(directory, 'sway%d' % n))
        shutil.rmtree(directory, ignore_errors=True)
        pool.shutdown()


if __name__ == '__main__':
    main()
