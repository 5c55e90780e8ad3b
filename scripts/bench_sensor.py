#!/usr/bin/env python3
"""Sensor benchmarks with the real libiio on a fake sysfs tree (in a private mount namespace), for
the local context and a real iiod side by side:

- CPU cost of polling at 25 Hz: the upright process's CPU time over 10 s (every thread's
  /proc/PID/task/*/schedstat, in ns), as a share of one core, beside the same process with no
  sensor; for iiod, the server's share too;
- latency from a sysfs write (a new attitude) to the orientation line on upright's output,
  over 12 quarter turns; the goal is settle time + one poll period + 5 ms;
- the motion fallback's answer time;
- beside them, bench/baselines/iio_poll.c: a C loop that only does the three libiio reads at
  25 Hz (the floor for anything that polls through libiio).

  scripts/bench_sensor.py BIN_DIR
"""
import json
import os
import random
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WRAP = os.path.join(ROOT, 'scripts/with-fake-iio.sh')
SCALE = 0.00981
TICK = os.sysconf('SC_CLK_TCK')


def make_tree():
    root = tempfile.mkdtemp(prefix='upright-bench-iio-')
    dev = os.path.join(root, 'devices', 'iio:device0')
    os.makedirs(dev)
    for name, value in [('name', 'accel_3d'), ('in_accel_x_raw', '0'.ljust(15)),
                        ('in_accel_y_raw', '0'.ljust(15)), ('in_accel_z_raw', '0'.ljust(15)),
                        ('in_accel_scale', str(SCALE)),
                        ('in_accel_mount_matrix', '1, 0, 0; 0, 1, 0; 0, 0, 1'),
                        ('in_accel_sampling_frequency', '25')]:
        with open(os.path.join(dev, name), 'w') as f:
            f.write(value + '\n')
    return root, dev


def put(dev, name, value):
    # As a driver's value changes: same file (a reader may keep it open), same size (padded, written
    # in place, so that a reader never sees a short file).
    with open(os.path.join(dev, name), 'r+') as f:
        f.write(value.ljust(15) + '\n')


def attitude(dev, x, y, z):
    # Identity mount matrix: raw = (-x, -y, +z) in the device frame.
    put(dev, 'in_accel_x_raw', str(round(-x / SCALE)))
    put(dev, 'in_accel_y_raw', str(round(-y / SCALE)))
    put(dev, 'in_accel_z_raw', str(round(z / SCALE)))


PORTRAIT = (0.3, 9.7, 1.2)
LANDSCAPE = (9.7, 0.2, 1.2)


def cpu_seconds(pid):
    """CPU time of every thread of the process, in seconds, from /proc/PID/task/*/schedstat (ns)."""
    total = 0
    for tid in os.listdir('/proc/%d/task' % pid):
        try:
            with open('/proc/%d/task/%s/schedstat' % (pid, tid)) as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total / 1e9


def start_iiod(root):
    port = str(random.randint(32000, 34000))
    p = subprocess.Popen([WRAP, root, 'iiod', '-p', port], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.8)
    return p, port


def sensor(bin_dir, root, uri, extra=()):
    cmd = [os.path.join(bin_dir, 'upright'), 'sensor', '--uri', uri, '--json', '--rate', '25'] + list(extra)
    if os.environ.get('UPRIGHT_BENCH_CONFIG'):
        cmd += ['--config', os.environ['UPRIGHT_BENCH_CONFIG']]
    if uri == 'local:':
        cmd = [WRAP, root] + cmd
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)


def read_line(p, timeout):
    r, _, _ = select.select([p.stdout], [], [], timeout)
    return p.stdout.readline().decode() if r else None


def wait_orientation(p, name, timeout):
    """Reads lines until the orientation `name` is reported; False on timeout."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        line = read_line(p, end - time.monotonic())
        if line is None:
            return False
        try:
            if json.loads(line).get('orientation') == name:
                return True
        except ValueError:
            pass
    return False


def measure(bin_dir, context):
    root, dev = make_tree()
    attitude(dev, *PORTRAIT)
    iiod = None
    uri = 'local:'
    try:
        if context == 'iiod':
            iiod, port = start_iiod(root)
            uri = 'ip:127.0.0.1:' + port
        p = sensor(bin_dir, root, uri)
        assert wait_orientation(p, 'portrait', 10), 'no first report'
        # CPU over 10 s of steady polling.
        c0, w0 = cpu_seconds(p.pid), time.monotonic()
        s0 = cpu_seconds(iiod.pid) if iiod else 0
        time.sleep(10)
        cpu = (cpu_seconds(p.pid) - c0) / (time.monotonic() - w0)
        server = (cpu_seconds(iiod.pid) - s0) / (time.monotonic() - w0) if iiod else None
        # Latency of 12 quarter turns.
        lat = []
        for k in range(12):
            target, name = (LANDSCAPE, 'landscape-left') if k % 2 == 0 else (PORTRAIT, 'portrait')
            time.sleep(0.5 + random.random() * 0.04)
            t0 = time.monotonic()
            attitude(dev, *target)
            if wait_orientation(p, name, 5):
                lat.append(time.monotonic() - t0)
        p.terminate()
        p.wait()
        return cpu, server, lat
    finally:
        if iiod:
            iiod.kill()
            iiod.wait()
        shutil.rmtree(root, ignore_errors=True)


def motion(bin_dir):
    root, dev = make_tree()
    attitude(dev, *LANDSCAPE)
    try:
        times = []
        for _ in range(5):
            out = subprocess.run([WRAP, root, os.path.join(bin_dir, 'upright'), 'sensor', '--motion'],
                                 capture_output=True, text=True).stdout
            times.append(json.loads(out)['elapsed'])
        return statistics.median(times), max(times)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def idle_cpu(bin_dir):
    """The same command with no sensor (uri none): the cost of the process itself, the baseline."""
    p = subprocess.Popen([os.path.join(bin_dir, 'upright'), 'sensor', '--uri', 'none', '--json'],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1)
    c0, w0 = cpu_seconds(p.pid), time.monotonic()
    time.sleep(10)
    cpu = (cpu_seconds(p.pid) - c0) / (time.monotonic() - w0)
    p.terminate()
    p.wait()
    return cpu


def libiio_floor(context):
    """CPU share of bench/baselines/iio_poll.c: only the three libiio reads at 25 Hz, in C."""
    build = tempfile.mkdtemp(prefix='upright-iio-poll-')
    root, dev = make_tree()
    attitude(dev, *PORTRAIT)
    iiod = None
    try:
        exe = os.path.join(build, 'iio_poll')
        subprocess.run(['cc', '-O2', '-o', exe, os.path.join(ROOT, 'bench/baselines/iio_poll.c'), '-liio'], check=True)
        if context == 'iiod':
            iiod, port = start_iiod(root)
            out = subprocess.run([exe, 'ip:127.0.0.1:' + port], capture_output=True, text=True).stdout
        else:
            out = subprocess.run([WRAP, root, exe], capture_output=True, text=True).stdout
        return float(out.split()[0])
    except (subprocess.CalledProcessError, ValueError, IndexError):
        return None
    finally:
        if iiod:
            iiod.kill()
            iiod.wait()
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(build, ignore_errors=True)


def main():
    bin_dir = sys.argv[1]
    goal = 0.05 + 1 / 25 + 0.005
    print('Sensor benchmark: fake accelerometer through the real libiio, 25 Hz polling')
    print()
    print('| context | CPU, share of one core | C loop of only the libiio reads | iiod CPU | latency write → event, median / p95 / max | goal |')
    print('|---|---:|---:|---:|---:|---:|')
    for context in ['local', 'iiod']:
        cpu, server, lat = measure(bin_dir, context)
        lat.sort()
        p95 = lat[min(len(lat) - 1, int(round(0.95 * (len(lat) - 1))))] if lat else float('nan')
        floor = libiio_floor(context)
        print('| %s | %.3f %% | %s | %s | %.0f / %.0f / %.0f ms (n=%d) | %.0f ms |' % (
            context, 100 * cpu, '-' if floor is None else '%.3f %%' % (100 * floor),
            '-' if server is None else '%.3f %%' % (100 * server),
            1e3 * statistics.median(lat), 1e3 * p95, 1e3 * lat[-1], len(lat), 1e3 * goal))
    print('| none (the same process, no sensor) | %.3f %% | - | - | - | - |' % (100 * max(0.0, idle_cpu(bin_dir))))
    med, worst = motion(bin_dir)
    print()
    print('motion fallback answer: median %.0f ms, worst %.0f ms of 5 (budget 300 ms)' % (1e3 * med, 1e3 * worst))


if __name__ == '__main__':
    main()
