#!/usr/bin/env python3
"""Remote content and live streams, on a headless sway, grim polled:

1. A URL item's start to its first frame: `upright play` with the clip's URL not cached yet (a
   new cache each round: the download comes first), cached (the same cache again), and plain mpv
   streaming the same URL, alternating. The clip is served by Python's HTTP server on loopback.
2. A live stream's server stopped and started again: an RTSP server (GStreamer's, as the tests
   run it) and an HLS stream (ffmpeg's, 1 s segments, served by Python's HTTP server) stopped
   for 5 s (SIGKILL), five times each: the time until the screen shows the slate (the splash)
   and, once the server is back, until it shows the stream again; beside plain mpv, which ends
   (or holds its last picture) and does not come back by itself.
3. The HLS stream with no splash configured (the built-in slate), its server up and the fault
   proxy (`scripts/fault-proxy.py`) between: a stall, a reset and a 503 on the playlist for 5 s
   each, five times each: the time until the slate shows, and until the stream is back once
   the proxy passes again; whether anything else (the desktop, black) showed meanwhile.

  ROUNDS=5 scripts/bench_remote.py BIN_DIR
"""
import http.server
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_appliance import blue, in_sway, red, rgb, screenshot, stop  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RTSP_SERVER = os.path.join(HERE, '..', 'Tests', 'UprightCLITests', 'Fixtures', 'rtsp-server.py')


def green(p):
    return p is not None and p[1] > 180 and p[0] < 80 and p[2] < 80


def down_the_middle(shot):
    """The pixels down the middle of the screen (where the video stands depends on the layout)."""
    return [rgb(shot, shot[0] // 2, y) for y in range(0, shot[1], shot[1] // 32)] if shot else []


def wait_for(env, test, limit, every=False):
    """Seconds until a pixel down the middle of the screen passes `test` (`every`: none fails
    it), or None after `limit`."""
    start = time.monotonic()
    while time.monotonic() - start < limit:
        pixels = down_the_middle(screenshot(env['WAYLAND_DISPLAY']))
        if pixels and (all(map(test, pixels)) if every else any(map(test, pixels))):
            return time.monotonic() - start
        time.sleep(0.02)
    return None


def serve(directory):
    handler = lambda *a: http.server.SimpleHTTPRequestHandler(*a, directory=directory)  # noqa: E731
    http.server.SimpleHTTPRequestHandler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def ms(xs):
    return ('median %4.0f ms, max %4.0f (%d)' % (statistics.median(xs) * 1000, max(xs) * 1000, len(xs))
            if xs else 'never')


def first_frames(bin_dir, env, directory, rounds):
    subprocess.run(['ffmpeg', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i',
                    'color=c=red:s=320x180:r=25:d=600', '-c:v', 'mpeg2video', '-q:v', '2',
                    os.path.join(directory, 'www', 'clip.mpg')], check=True)
    server = serve(os.path.join(directory, 'www'))
    url = 'http://127.0.0.1:%d/clip.mpg' % server.server_address[1]
    conf = os.path.join(directory, 'remote.toml')

    def upright_argv(cache):
        with open(conf, 'w') as f:
            f.write('[sensor]\nuri = "none"\n[lock]\nevdev = "none"\n[player]\nplaylist = ["%s"]\n'
                    '[player.mpv]\nvo = "wlshm"\nao = "null"\n[cache]\ndirectory = "%s"\n' % (url, cache))
        return [os.path.join(bin_dir, 'upright'), 'play', '--config', conf, '--no-control']

    times = {'uncached': [], 'cached': [], 'mpv': []}
    for n in range(rounds):
        cache = os.path.join(directory, 'cache-%d' % n)
        for name in ('uncached', 'cached', 'mpv'):
            argv = (['mpv', '--no-config', '--fs', '--vo=wlshm', '--ao=null', '--really-quiet', url]
                    if name == 'mpv' else upright_argv(cache))
            p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            t = wait_for(env, red, 20)
            stop(p)
            wait_for(env, lambda c: not red(c), 5, every=True)
            if t is not None:
                times[name].append(t)
    server.shutdown()
    print('A URL item, start to first frame (a %d-round median; the clip served on loopback):' % rounds)
    print('  upright, not cached yet   %s' % ms(times['uncached']))
    print('  upright, cached           %s' % ms(times['cached']))
    print('  plain mpv, streaming      %s' % ms(times['mpv']))


def rtsp_server(port):
    p = subprocess.Popen(['/usr/bin/python3', RTSP_SERVER, str(port), '0xff00ff00'], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    return p, int(p.stdout.readline())


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def http_server(directory, port):
    """Python's HTTP server in a process of its own (stopped with SIGKILL: its connections go
    with it, as a server's that dies)."""
    p = subprocess.Popen([sys.executable, '-m', 'http.server', str(port), '--bind', '127.0.0.1',
                          '--directory', directory], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(('127.0.0.1', port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    return p, port


class Stream:
    """A live stream whose server can be stopped (SIGKILL) and started again on the same port."""

    def __init__(self, kind, directory):
        self.kind = kind
        self.encoder = None
        if kind == 'rtsp':
            self.server, self.port = rtsp_server(0)
            self.url = 'rtsp://127.0.0.1:%d/stream' % self.port
        else:
            # ffmpeg writing HLS (1 s segments) into a folder, served over HTTP.
            self.folder = os.path.join(directory, 'hls')
            os.makedirs(self.folder, exist_ok=True)
            self.encoder = subprocess.Popen(
                ['ffmpeg', '-loglevel', 'error', '-re', '-f', 'lavfi', '-i', 'color=c=0x00ff00:s=320x240:r=25',
                 '-c:v', 'mpeg2video', '-g', '25', '-f', 'hls', '-hls_time', '1', '-hls_list_size', '4',
                 '-hls_flags', 'delete_segments', os.path.join(self.folder, 'live.m3u8')])
            for _ in range(100):
                if os.path.exists(os.path.join(self.folder, 'live.m3u8')):
                    break
                time.sleep(0.05)
            self.server, self.port = http_server(self.folder, free_port())
            self.url = 'http://127.0.0.1:%d/live.m3u8' % self.port

    def stop(self):
        self.server.send_signal(signal.SIGKILL)
        self.server.wait()

    def start(self):
        self.server, _ = rtsp_server(self.port) if self.kind == 'rtsp' else http_server(self.folder, self.port)

    def end(self):
        stop(self.server)
        if self.encoder:
            stop(self.encoder)


def outages(bin_dir, env, directory, rounds, kind):
    splash = os.path.join(directory, 'splash.png')
    if not os.path.exists(splash):
        subprocess.run(['ffmpeg', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'color=c=blue:s=64x64',
                        '-frames:v', '1', splash], check=True)
    stream = Stream(kind, directory)
    conf = os.path.join(directory, 'live.toml')
    with open(conf, 'w') as f:
        f.write('[sensor]\nuri = "none"\n[lock]\nevdev = "none"\n[player]\nsplash = "%s"\nplaylist = ["%s"]\n'
                '[player.mpv]\nvo = "wlshm"\nao = "null"\n' % (splash, stream.url))
    runs = {
        'upright': [os.path.join(bin_dir, 'upright'), 'play', '--config', conf, '--no-control'],
        'mpv': ['mpv', '--no-config', '--fs', '--vo=wlshm', '--ao=null', '--really-quiet', stream.url],
    }
    results = {}
    for name, argv in runs.items():
        p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        slate, back, ended = [], [], 0
        if wait_for(env, green, 20) is None:
            results[name] = None
            stop(p)
            continue
        for _ in range(rounds):
            time.sleep(2)  # well into the stream (HLS: at a segment's any point)
            stream.stop()
            started = time.monotonic()
            t = wait_for(env, blue, 5)
            if t is not None:
                slate.append(t)
            time.sleep(max(0, 5 - (time.monotonic() - started)))
            if p.poll() is not None:
                ended += 1  # the player ended with its stream (plain mpv does)
            stream.start()
            if p.poll() is None:
                b = wait_for(env, green, 10)
                if b is not None:
                    back.append(b)
        stop(p)
        results[name] = (slate, back, ended)
    stream.end()
    print('A live stream (%s) whose server is stopped (SIGKILL) for 5 s, %d times:'
          % ('RTSP' if kind == 'rtsp' else 'HLS, 1 s segments', rounds))
    for name, r in results.items():
        if r is None:
            print('  %-8s the stream never showed' % name)
            continue
        slate, back, ended = r
        print('  %-8s the slate after %s; the stream back after %s%s'
              % (name, ms(slate) if slate else 'never (no slate)', ms(back) if back else 'never (not reconnected)',
                 '; the player ended with the stream' if ended else ''))


def slate(p):
    # The built-in slate's colour (0x102040), as grim sees it.
    return p is not None and p[0] < 40 and 16 < p[1] < 56 and 44 < p[2] < 90


def proxy_outages(bin_dir, env, directory, rounds):
    stream = Stream('hls', directory)
    proxy = subprocess.Popen([sys.executable, os.path.join(HERE, 'fault-proxy.py'), str(stream.port)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    port = int(proxy.stdout.readline())

    def fault(words):
        proxy.stdin.write(words + '\n')
        proxy.stdin.flush()
        assert proxy.stdout.readline().strip() == 'ok'

    conf = os.path.join(directory, 'proxied.toml')
    with open(conf, 'w') as f:
        f.write('[sensor]\nuri = "none"\n[lock]\nevdev = "none"\n[player]\nplaylist = ["http://127.0.0.1:%d/live.m3u8"]\n'
                '[player.mpv]\nvo = "wlshm"\nao = "null"\n' % port)
    p = subprocess.Popen([os.path.join(bin_dir, 'upright'), 'play', '--config', conf, '--no-control'],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print('The HLS stream through the fault proxy (no splash: the built-in slate), each fault for 5 s, %d times:'
          % rounds)
    if wait_for(env, green, 20) is None:
        print('  the stream never showed')
    else:
        for name, words in [('a stall', 'stall 0'), ('a reset', 'reset 0'), ('503 on the playlist', 'status 503 .m3u8')]:
            shown, back, wrong = [], [], 0
            for _ in range(rounds):
                time.sleep(2)
                fault(words)
                started = time.monotonic()
                t = wait_for(env, slate, 8)
                if t is not None:
                    shown.append(t)
                while time.monotonic() - started < 5:
                    pixels = down_the_middle(screenshot(env['WAYLAND_DISPLAY']))
                    if pixels and not any(map(slate, pixels)) and not any(map(green, pixels)):
                        wrong += 1
                    time.sleep(0.1)
                fault('pass')
                b = wait_for(env, green, 10)
                if b is not None:
                    back.append(b)
            print('  %-20s the slate after %s; the stream back after %s; %d looks showed neither'
                  % (name, ms(shown) if shown else 'never', ms(back) if back else 'never', wrong))
    stop(p)
    stop(proxy)
    stream.end()


def main():
    bin_dir = os.path.abspath(sys.argv[1])
    rounds = int(os.environ.get('ROUNDS', '5'))

    def run(env, directory):
        os.makedirs(os.path.join(directory, 'www'))
        first_frames(bin_dir, env, directory, rounds)
        outages(bin_dir, env, directory, rounds, 'rtsp')
        outages(bin_dir, env, directory, rounds, 'hls')
        proxy_outages(bin_dir, env, directory, rounds)
    in_sway('upright-bench-remote-', run)


if __name__ == '__main__':
    main()
