#!/usr/bin/env python3
"""The page and the metrics port under attack, from the operator's own address (127.0.0.1), so
that a per-address limit alone would not pass:

- on each port at once, IDLE (1500) connections that send nothing, and SLOW (50) slow-header
  clients that send a byte of a request head every 2 s and connect again whenever they are closed;
- after 20 s: a logged-in status request and a scrape, each timed (goal: within 2 s), and the
  descriptors `upright` holds (goal: under 600);
- after 90 s: the attackers' connections that `upright` still holds per port, as `ss` sees them
  (goal: at most 64).

  IDLE=1500 SLOW=50 scripts/bench_listeners.py BIN_DIR
"""
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_appliance import stop  # noqa: E402
from webpage import PASSWORD, free_port, start_page  # noqa: E402



def idle(port, n, held):
    for _ in range(n):
        try:
            held.append(socket.create_connection(('127.0.0.1', port), timeout=5))
        except OSError:
            pass


def slow(port, n, stopping):
    """Slow-header clients: a byte every 2 s; connected again when closed."""
    sockets = []
    while not stopping.is_set():
        while len(sockets) < n:
            try:
                sockets.append(socket.create_connection(('127.0.0.1', port), timeout=5))
            except OSError:
                break
        alive = []
        for s in sockets:
            try:
                s.send(b'G')
                alive.append(s)
            except OSError:
                s.close()
        sockets = alive
        stopping.wait(2)
    for s in sockets:
        s.close()


def timed(argv):
    started = time.monotonic()
    r = subprocess.run(argv, capture_output=True, text=True)
    return time.monotonic() - started, r.stdout


def held_by_server(port):
    out = subprocess.run(['ss', '-tnH', 'state', 'established', 'sport = :%d' % port],
                         capture_output=True, text=True).stdout
    return len([line for line in out.splitlines() if line.strip()])


def main():
    bin_dir = os.path.abspath(sys.argv[1])
    n_idle, n_slow = int(os.environ.get('IDLE', '1500')), int(os.environ.get('SLOW', '50'))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4 * (n_idle + n_slow) + 1024), hard))
    directory = tempfile.mkdtemp(prefix='upright-bench-listeners-')
    metrics = free_port()
    p, base = start_page(bin_dir, directory, '[metrics]\nlisten = "127.0.0.1:%d"' % metrics)
    page = int(base.rsplit(':', 1)[1])
    jar = directory + '/jar'
    subprocess.run(['curl', '-s', '-o', '/dev/null', '-c', jar, '--data-urlencode', 'password=' + PASSWORD,
                    'http://127.0.0.1:%d/login' % page], check=True)
    base_fds = len(os.listdir('/proc/%d/fd' % p.pid))
    held, stopping = [], threading.Event()
    threads = [threading.Thread(target=idle, args=(port, n_idle, held)) for port in (page, metrics)]
    threads += [threading.Thread(target=slow, args=(port, n_slow, stopping), daemon=True) for port in (page, metrics)]
    started = time.monotonic()
    for t in threads:
        t.start()
    time.sleep(max(0, 20 - (time.monotonic() - started)))
    status_s, status = timed(['curl', '-s', '--max-time', '10', '-b', jar, 'http://127.0.0.1:%d/api/status' % page])
    scrape_s, scrape = timed(['curl', '-s', '--max-time', '10', 'http://127.0.0.1:%d/metrics' % metrics])
    fds = len(os.listdir('/proc/%d/fd' % p.pid))
    print('The page and /metrics, %d idle connections and %d slow-header clients on each port, from 127.0.0.1:'
          % (n_idle, n_slow))
    print('  after 20 s: the status in %4.0f ms (%s), a scrape in %4.0f ms (%s); upright holds %d descriptors '
          '(%d before)' % (status_s * 1000, 'ok' if '"device"' in status else 'FAILED', scrape_s * 1000,
                           'ok' if 'upright_' in scrape else 'FAILED', fds, base_fds))
    time.sleep(max(0, 90 - (time.monotonic() - started)))
    print('  after 90 s: upright holds %d connections on the page\'s port, %d on the metrics port; '
          'the process is %s' % (held_by_server(page), held_by_server(metrics),
                                 'running' if p.poll() is None else 'GONE'))
    goals = status_s < 2 and scrape_s < 2 and fds < 600 and held_by_server(page) <= 64 \
        and held_by_server(metrics) <= 64
    print('  goals (within 2 s each, under 600 descriptors, at most 64 held per port): %s'
          % ('met' if goals else 'NOT met'))
    stopping.set()
    for s in held:
        s.close()
    stop(p)
    shutil.rmtree(directory, ignore_errors=True)


if __name__ == '__main__':
    main()
