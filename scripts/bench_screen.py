#!/usr/bin/env python3
"""What the screen shows between items: `upright play` beside plain mpv, each with mpv's GPU video
output on a headless sway of its own, playing an image, a video and another video, looped; and
the same three items as a SMIL index's `seq`. Every frame the compositor makes for the middle of
the screen is recorded by wf-recorder (screencopy with damage: about 44 a round for 40 video
frames and the image); the black ones are counted. The seconds per item change, against the
items' own 2.2 s a round, give the gap each change adds.

  scripts/bench_screen.py BIN_DIR [SECONDS]
"""
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_appliance import start_sway, stop, stop_sway  # noqa: E402

VIDEOS = ["av://lavfi:color=c=blue:size=320x240:rate=25:duration=0.8",
          "av://lavfi:color=c=green:size=320x240:rate=25:duration=0.8"]
IMAGE_SECONDS = 0.6
# The middle of the 800x1280 headless output, where every item shows.
REGION = (390, 630, 20, 20)


def red_png(path, w=320, h=240):
    raw = b''.join(b'\x00' + b'\xff\x00\x00' * w for _ in range(h))

    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))
                + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
    os.chmod(path, 0o644)


def colour(b, g, r):
    if r > 128:
        return 'red'
    if b > 128:
        return 'blue'
    if g > 40:
        return 'green'
    return 'black' if max(r, g, b) < 24 else 'other'


def record(env, seconds, path):
    """The colour at the region's centre in each frame wf-recorder gets."""
    x, y, w, h = REGION
    rec = subprocess.Popen(['wf-recorder', '-m', 'rawvideo', '-c', 'rawvideo', '-x', 'bgr0',
                            '-g', '%d,%d %dx%d' % (x, y, w, h), '-f', path],
                           env=dict(os.environ, WAYLAND_DISPLAY=env['WAYLAND_DISPLAY'],
                                    XDG_RUNTIME_DIR=env['XDG_RUNTIME_DIR']),
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(seconds)
    stop(rec, signal.SIGINT, timeout=3)
    data = open(path, 'rb').read() if os.path.exists(path) else b''
    size, centre = w * h * 4, ((h // 2) * w + w // 2) * 4
    return [colour(*data[f + centre:f + centre + 3]) for f in range(0, len(data) - size + 1, size)]


def measure(name, command_for, seconds):
    directory = tempfile.mkdtemp(prefix='upright-bench-screen-')
    env = start_sway(os.path.join(directory, 'sway'))
    image = os.path.join(directory, 'red.png')
    red_png(image)
    penv = dict(os.environ, WAYLAND_DISPLAY=env['WAYLAND_DISPLAY'], SWAYSOCK=env['SWAYSOCK'],
                XDG_RUNTIME_DIR=env['XDG_RUNTIME_DIR'])
    player = subprocess.Popen(command_for(directory, image), env=penv, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(3)
        frames = record(env, seconds, os.path.join(directory, 'screen.raw'))
    finally:
        player.terminate()
        try:
            player.wait(timeout=5)
        except subprocess.TimeoutExpired:
            player.kill()
            player.wait()
        stop_sway(env, os.path.join(directory, 'sway'))
        shutil.rmtree(directory, ignore_errors=True)
    shown = [c for i, c in enumerate(frames) if i == 0 or c != frames[i - 1]]
    black = sum(1 for i, c in enumerate(frames) if c == 'black' and any(p != 'black' for p in frames[:i]))
    changes = max(0, len(shown) - 1)
    # A round is three changes and 2.2 s of items: what it takes beyond that is the gaps'.
    gap = (seconds * 3 / changes - (IMAGE_SECONDS + 1.6)) / 3 if changes else None
    return {'item_changes': changes, 'black_frames': black, 'frames': len(frames),
            'other_frames': frames.count('other'), 'gap_ms_per_change': gap and round(gap * 1000, 1)}


def upright_command(bin_dir):
    def command(directory, image):
        conf = os.path.join(directory, 'upright.toml')
        with open(conf, 'w') as f:
            f.write('[sensor]\nuri = "none"\n[player]\nplaylist = [%s]\nimage_duration = %s\n'
                    '[player.mpv]\nvo = "gpu"\ngpu-context = "wayland"\nao = "null"\n'
                    % (', '.join('"%s"' % p for p in [image] + VIDEOS), IMAGE_SECONDS))
        return [os.path.join(bin_dir, 'upright'), 'play', '--config', conf, '--no-control']
    return command


def smil_command(bin_dir):
    def command(directory, image):
        index = os.path.join(directory, 'index.smil')
        with open(index, 'w') as f:
            f.write('<smil><body><seq repeatCount="indefinite">\n<img src="red.png" dur="%ss" fit="fill"/>\n%s'
                    '</seq></body></smil>\n' % (IMAGE_SECONDS, ''.join('<video src="%s"/>\n' % v for v in VIDEOS)))
        os.chmod(index, 0o644)
        conf = os.path.join(directory, 'upright.toml')
        with open(conf, 'w') as f:
            f.write('[sensor]\nuri = "none"\n[player]\nplaylist = ["%s"]\n'
                    '[player.mpv]\nvo = "gpu"\ngpu-context = "wayland"\nao = "null"\n' % index)
        return [os.path.join(bin_dir, 'upright'), 'play', '--config', conf, '--no-control']
    return command


def plain_command(directory, image):
    return ['mpv', '--no-config', '--vo=gpu', '--gpu-context=wayland', '--ao=null', '--fs', '--loop-playlist=inf',
            '--image-display-duration=%s' % IMAGE_SECONDS, '--really-quiet', image] + VIDEOS


def main():
    bin_dir = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 25
    result = {'upright': measure('upright', upright_command(bin_dir), seconds),
              'upright_smil': measure('upright, a SMIL index', smil_command(bin_dir), seconds),
              'plain_mpv': measure('plain mpv', plain_command, seconds)}
    print(json.dumps({'screen': result}))


if __name__ == '__main__':
    main()
