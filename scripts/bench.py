#!/usr/bin/env python3
"""Upright's benchmarks, side by side with the Android reference in the same run.

  scripts/bench.py BIN_DIR [--trace bench/traces/public/13_long.csv] [--runs 5]

BIN_DIR holds the release build (`upright`, `upright-bench`). Prints a Markdown table:
classifier throughput on one core (samples/s), and the wall time to replay the 10-minute trace
end to end (process start, parse, classify, print), each beside the project's port of Android's
WindowOrientationListener (bench/peers/android.py) on the same trace.
"""
import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def wall(cmd, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def android_throughput(trace, seconds=3.0):
    spec = importlib.util.spec_from_file_location('android', os.path.join(ROOT, 'bench/peers/android.py'))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with open(trace) as f:
        next(f)
        rows = [tuple(float(v) for v in line.split(',')) for line in f if line.strip()]
    span = rows[-1][0] - rows[0][0] + 1
    judge = mod.Judge()
    fed, offset = 0, 0.0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for (t, x, y, z) in rows:
            judge.feed(int(round((t + offset) * 1e9)), x, y, z)
        fed += len(rows)
        offset += span
    return fed / (time.perf_counter() - t0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('bin_dir')
    ap.add_argument('--trace', default=os.path.join(ROOT, 'bench/traces/public/13_long.csv'))
    ap.add_argument('--runs', type=int, default=5)
    a = ap.parse_args()
    upright = os.path.join(a.bin_dir, 'upright')
    bench = os.path.join(a.bin_dir, 'upright-bench')
    with open(a.trace) as f:
        n = sum(1 for _ in f) - 1

    out = subprocess.run([bench, a.trace, '--seconds', '3'], check=True, capture_output=True, text=True).stdout
    ours = json.loads(out.strip().splitlines()[-1])['samples_per_s']
    theirs = android_throughput(a.trace)
    startup = wall([upright, '--version'], a.runs)
    replay = wall([upright, 'replay', a.trace], a.runs)
    android = wall([sys.executable, os.path.join(ROOT, 'bench/peers/android.py'), a.trace], a.runs)

    print('Classifier benchmark: %s (%d samples), median of %d runs, one core' % (os.path.basename(a.trace), n, a.runs))
    print()
    print('| measure | upright | Android reference | ratio |')
    print('|---|---:|---:|---:|')
    print('| classifier throughput, samples/s | %.1f M | %.2f M | %.0fx |' % (ours / 1e6, theirs / 1e6, ours / theirs))
    print('| replay of the trace, wall time | %.0f ms | %.0f ms | %.1fx |' % (replay * 1e3, android * 1e3, android / replay))
    print('| of which process start-up | %.0f ms | - | - |' % (startup * 1e3))
    print('| replay end to end, samples/s | %.2f M | %.2f M | - |' % (n / replay / 1e6, n / android / 1e6))
    out = subprocess.run([bench, '--policy', '--seconds', '2'], check=True, capture_output=True, text=True).stdout
    policy = json.loads(out.strip().splitlines()[-1])
    per_sample = 1e6 / ours
    print('| policy decision (device turn, lock, scene, command), per event | %.2f us | - | goal < 5 us |'
          % policy['us_per_event'])
    print('| for scale: one classifier sample | %.3f us | %.1f us | - |' % (per_sample, 1e6 / theirs))
    print()
    print(subprocess.run([bench, '--player'], check=True, capture_output=True, text=True).stdout.rstrip())
    print()
    goal = 20e6
    print('throughput goal (>= 20 M samples/s): %s' % ('met' if ours >= goal else 'NOT met'))
    print('policy goal (< 5 us per decision): %s' % ('met' if policy['us_per_event'] < 5 else 'NOT met'))


if __name__ == '__main__':
    main()
