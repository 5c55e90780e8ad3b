#!/usr/bin/env python3
"""Start to first frame: `upright play` beside plain mpv, each started on the same headless sway,
alternating, until a screenshot (grim, polled) shows the clip's red. The kiosk measure of
`make kiosk-check` (greetd's session start to the first frame, under emulation) without the VM.
Goal: Upright within 0.5 s of plain mpv (and here, natively, within 50 ms).

  ROUNDS=10 scripts/bench_start.py BIN_DIR
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_appliance import CLIPS, red, rgb, screenshot, start_sway, stop, stop_sway  # noqa: E402

CLIP = CLIPS[0].replace(':duration=7', ':duration=600')


def shows_red(shot):
    """The clip's red somewhere down the middle of the screen (its place depends on the output's
    size and transform)."""
    return shot is not None and any(red(rgb(shot, shot[0] // 2, y)) for y in range(0, shot[1], shot[1] // 32))


def first_frame(argv, env, limit=20.0):
    """Seconds from the start of `argv` until the screen shows the clip's red, or None."""
    start = time.monotonic()
    p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen = None
    try:
        while time.monotonic() - start < limit and p.poll() is None:
            shot = screenshot(env['WAYLAND_DISPLAY'])
            if shows_red(shot):
                seen = time.monotonic() - start
                break
    finally:
        stop(p)
    # The screen back to sway's background before the next round.
    end = time.monotonic() + 5
    while time.monotonic() < end:
        shot = screenshot(env['WAYLAND_DISPLAY'])
        if shot and not shows_red(shot):
            break
        time.sleep(0.05)
    return seen


def main():
    bin_dir = os.path.abspath(sys.argv[1])
    rounds = int(os.environ.get('ROUNDS', '10'))
    directory = tempfile.mkdtemp(prefix='upright-bench-start-')
    os.chmod(directory, 0o755)
    env_sway = None
    try:
        env_sway = start_sway(os.path.join(directory, 'sway'))
        env = dict(os.environ, WAYLAND_DISPLAY=env_sway['WAYLAND_DISPLAY'],
                   XDG_RUNTIME_DIR=env_sway['XDG_RUNTIME_DIR'])
        conf = os.path.join(directory, 'upright.toml')
        with open(conf, 'w') as f:
            f.write('[sensor]\nuri = "none"\n[lock]\nevdev = "none"\n[player]\nplaylist = ["%s"]\n'
                    '[player.mpv]\nvo = "wlshm"\nao = "null"\n%s\n' % (CLIP, os.environ.get('UPRIGHT_MPV_EXTRA', '').replace(';', '\n')))
        runs = {
            'upright': [os.path.join(bin_dir, 'upright'), 'play', '--config', conf, '--no-control'],
            'mpv': ['mpv', '--no-config', '--fs', '--vo=wlshm', '--ao=null', '--really-quiet', CLIP],
        }
        times = {name: [] for name in runs}
        first_frame(runs['upright'], env)  # the files into the page cache, for both
        first_frame(runs['mpv'], env)
        for _ in range(rounds):
            for name, argv in runs.items():
                t = first_frame(argv, env)
                if t is not None:
                    times[name].append(t)
        print('Start to first frame on a headless sway (grim polled; %d rounds, alternating):' % rounds)
        for name, ts in times.items():
            if ts:
                print('  %-8s median %4.0f ms, min %4.0f, max %4.0f (%d of %d shown)'
                      % (name, statistics.median(ts) * 1000, min(ts) * 1000, max(ts) * 1000, len(ts), rounds))
            else:
                print('  %-8s never shown' % name)
        if times['upright'] and times['mpv']:
            gap = statistics.median(times['upright']) - statistics.median(times['mpv'])
            print('  Upright - mpv: %+.0f ms (goal: within 500 ms under emulation, 50 ms here)' % (gap * 1000))
    finally:
        if env_sway:
            stop_sway(env_sway, os.path.join(directory, 'sway'))
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == '__main__':
    main()
