#!/usr/bin/env python3
"""Plays a folder of SMIL indexes (a peer's test corpus, such as garlic-player's `tests/data`)
through `upright play`, each served over HTTP on loopback and shown on a headless sway of its own,
and says what each did: whether the index was read or refused, the warnings, what each zone showed
in order (the element's xml:id, else its file's name or the brush's colour), how many zones showed
at once at most, and whether the process kept running. A screenshot is kept at the moment the
most zones showed, and how much of it Upright's window covers (the rest is the compositor's
grey background: nothing on screen). The corpus is not part of the repository (its licence is
not ours).

  scripts/smil_corpus.py BIN_DIR CORPUS_DIR [SECONDS] [OUT_DIR] [FILE,FILE...] > results.jsonl

FILE,FILE... plays only those indexes (paths under CORPUS_DIR).
"""
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_appliance import start_sway, stop, stop_sway  # noqa: E402


def serve(root):
    server = subprocess.Popen([sys.executable, '-m', 'http.server', '--bind', '127.0.0.1', '0'], cwd=root,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = server.stdout.readline()  # "Serving HTTP on 127.0.0.1 port N (...)"
    return server, int(line.split(' port ')[1].split()[0])


def ask(path, command):
    try:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(5)
        s.connect(path)
        s.sendall((json.dumps({'command': command}) + '\n').encode())
        data = b''
        while not data.endswith(b'\n'):
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            data += chunk
        s.close()
        return json.loads(data)
    except (OSError, ValueError):
        return None


def name(zone):
    if zone.get('id'):
        return zone['id']
    item = zone.get('item') or '-'
    return item if item.startswith('brush') else item.rsplit('/', 1)[-1]


def covered(png):
    """The share of a screenshot that is not sway's own grey background (#3f3f3f, give or take
    the PNG's conversion): where the player's window shows something."""
    try:
        raw = subprocess.run(['ffmpeg', '-loglevel', 'error', '-i', png, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
                             capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    looked = range(0, len(raw) - 2, 3 * 7)  # every 7th pixel
    grey = sum(1 for i in looked if raw[i] == raw[i + 1] == raw[i + 2] and 0x3a <= raw[i] <= 0x44)
    return max(0.0, round(1 - grey / max(1, len(looked)), 3))


def play(bin_dir, url, seconds, work, shot):
    env = start_sway(os.path.join(work, 'sway'), mode='1280x720')
    control = os.path.join(work, 'control.sock')
    conf = os.path.join(work, 'upright.toml')
    with open(conf, 'w') as f:
        f.write('[sensor]\nuri = "none"\n[lock]\nevdev = "none"\n[player]\nplaylist = ["%s"]\n'
                '[cache]\ndirectory = "%s/cache"\n[player.mpv]\nao = "null"\n' % (url, work))
    penv = dict(os.environ, WAYLAND_DISPLAY=env['WAYLAND_DISPLAY'], SWAYSOCK=env['SWAYSOCK'],
                XDG_RUNTIME_DIR=env['XDG_RUNTIME_DIR'], STATE_DIRECTORY=os.path.join(work, 'state'))
    log = open(os.path.join(work, 'upright.log'), 'w')
    player = subprocess.Popen([os.path.join(bin_dir, 'upright'), 'play', '--config', conf, '--vo', 'wlshm',
                               '--control', control], env=penv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=log)
    orders, most, last, smil = {}, 0, {}, {}
    start = time.time()
    try:
        while time.time() - start < seconds:
            reply = ask(control, 'status')
            smil = ((reply or {}).get('status') or {}).get('smil') or smil
            zones = {z['region']: name(z) for z in smil.get('zones', [])}
            for region, what in zones.items():
                if last.get(region) != what:
                    orders.setdefault(region, []).append(what)
            last = zones
            if len(zones) > most:
                most = len(zones)
                picture = ((ask(control, 'screenshot') or {}).get('screenshot') or {}).get('png')
                if picture:
                    with open(shot, 'wb') as f:
                        f.write(base64.b64decode(picture))
            time.sleep(0.15)
        alive = player.poll() is None
    finally:
        stop(player, 15, timeout=5)
        stop_sway(env, os.path.join(work, 'sway'))
        log.close()
    return {'alive': alive, 'problem': smil.get('problem'), 'refused': smil.get('refused', []),
            'faults': smil.get('faults', []), 'most_zones_at_once': most,
            'window_covers': covered(shot) if os.path.exists(shot) else None, 'orders': orders}


def main():
    bin_dir, corpus = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 25
    out = sys.argv[4] if len(sys.argv) > 4 else tempfile.mkdtemp(prefix='upright-smil-corpus-')
    os.makedirs(out, exist_ok=True)
    server, port = serve(corpus)
    try:
        files = sorted(os.path.relpath(os.path.join(d, f), corpus)
                       for d, _, names in os.walk(corpus) for f in names if f.endswith('.smil'))
        if len(sys.argv) > 5:
            files = [f for f in files if f in sys.argv[5].split(',')]
        for rel in files:
            work = tempfile.mkdtemp(prefix='upright-smil-')
            os.chmod(work, 0o755)
            shot = os.path.join(out, rel.replace('/', '_') + '.png')
            result = play(bin_dir, 'http://127.0.0.1:%d/%s' % (port, rel), seconds, work, shot)
            result['file'] = rel
            print(json.dumps(result), flush=True)
            shutil.rmtree(work, ignore_errors=True)
    finally:
        server.kill()


if __name__ == '__main__':
    main()
