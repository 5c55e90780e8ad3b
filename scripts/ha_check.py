#!/usr/bin/env python3
"""`make ha-check`: Upright's MQTT discovery against a real Home Assistant Core and mosquitto on
loopback.

Home Assistant Core is installed from PyPI into a virtual environment kept in
$XDG_CACHE_HOME/upright (the first run takes minutes; later ones reuse it): with Python 3.13 the
2025.4 series, with 3.12 the 2024.12 series, with Debian bookworm's 3.11 the 2024.3 series (the
newest for it). Its MQTT integration is set up as a configuration entry for the broker, and the
recorder keeps every state in SQLite, which this check reads (no account or token needed).

Then `upright play` runs as the device `lobby.1` (a dot: no valid id as it is) under a headless
sway, with a power plan and screenshots every 10 s, and the check asks:
  - does Home Assistant create the device's entities (sensors, binary sensors, buttons, switches,
    select, numbers, text, image)?
  - does the playing item's sensor show the item's title (a path longer than 255 characters)?
  - does a refused command show in the "Last refused command" sensor?
  - does the image entity have an image (its state is the time of the last one)?
  - Home Assistant's own commands, from an automation every 20 s: does the volume become 35, the
    toast's words show (in its entity, and on the screen: the screenshot has light words in its
    middle), the brightness get set (a panel's backlight on a fake /sys/class/backlight, 128 of
    255 at the start: the entity shows 60, and the file holds 153)?

  [HA_PYTHON=/usr/bin/python3] scripts/ha_check.py BIN_DIR
"""
import glob
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_appliance import start_sway, stop_sway  # noqa: E402

SERIES = {(3, 13): 'homeassistant>=2025.4,<2025.5', (3, 12): 'homeassistant>=2024.12,<2025.1',
          (3, 11): 'homeassistant==2024.3.3'}


def say(text):
    print('ha-check: ' + text, flush=True)


def python():
    """The newest Python that a series above runs on: on PATH, or pyenv's ($HA_PYTHON chooses)."""
    candidates = [os.environ.get('HA_PYTHON')]
    for minor in (13, 12, 11):
        candidates += [shutil.which('python3.%d' % minor)]
        candidates += sorted(glob.glob(os.path.expanduser('~/.pyenv/versions/3.%d.*/bin/python3' % minor)))[-1:]
    for path in filter(None, candidates if not candidates[0] else candidates[:1]):
        out = subprocess.run([path, '-c', 'import sys, venv; print(*sys.version_info[:2])'], capture_output=True,
                             text=True)
        if out.returncode == 0:
            return path, tuple(int(x) for x in out.stdout.split())
    sys.exit('ha-check: no Python 3.11 or later with venv (Debian: apt-get install python3-venv)')


def environment():
    path, version = python()
    cache = os.path.join(os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'), 'upright')
    venv = os.path.join(cache, 'ha-venv-%d.%d' % version)
    hass = os.path.join(venv, 'bin', 'hass')
    requirement = SERIES[version]
    stamp = os.path.join(venv, 'upright-requirement')
    installed = open(stamp).read() if os.path.exists(stamp) and os.path.exists(hass) else None
    if installed != requirement:
        say('installing %s for Python %d.%d into %s (minutes, once)' % (requirement, *version, venv))
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([path, '-m', 'venv', venv], check=True)
        pip = [os.path.join(venv, 'bin', 'pip'), 'install', '--quiet', '--disable-pip-version-check']
        subprocess.run(pip + ['--upgrade', 'pip', 'wheel'], check=True)
        subprocess.run(pip + [requirement], check=True)
        with open(stamp, 'w') as f:
            f.write(requirement)
    version_text = subprocess.run([hass, '--version'], capture_output=True, text=True).stdout.strip()
    return hass, version_text


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


# The device `lobby.1` in Home Assistant's ids: its name mapped, and its hash (docs/FLEET.md).
NODE = 'upright_lobby_1_670f01c2'
TOAST = 'Hello from Home Assistant'
# Home Assistant's own commands, every 20 s: what a dashboard's slider and text box send.
AUTOMATION = """automation:
  - alias: upright kiosk commands
    trigger:
      - platform: time_pattern
        seconds: "/20"
    action:
      - service: number.set_value
        target: {entity_id: number.%(node)s_volume}
        data: {value: 35}
        continue_on_error: true
      - service: text.set_value
        target: {entity_id: text.%(node)s_toast}
        data: {value: "%(toast)s"}
        continue_on_error: true
      - service: number.set_value
        target: {entity_id: number.%(node)s_brightness}
        data: {value: 60}
        continue_on_error: true
""" % {'node': NODE, 'toast': TOAST}


def configure(directory, port):
    """Home Assistant's configuration: no onboarding needed to run, the recorder committing every
    second, the MQTT integration as a configuration entry for the broker on `port`, and the
    automation that sends the kiosk's commands."""
    with open(os.path.join(directory, 'configuration.yaml'), 'w') as f:
        f.write('homeassistant:\n  name: ha-check\n  latitude: 0\n  longitude: 0\n  elevation: 0\n'
                '  unit_system: metric\n  time_zone: UTC\n  currency: EUR\n  country: DE\n'
                'recorder:\n  commit_interval: 1\n  db_url: sqlite:///%s/states.db\n'
                'logger:\n  default: warning\n  logs:\n    homeassistant.components.mqtt: info\n' % directory
                + AUTOMATION)
    storage = os.path.join(directory, '.storage')
    os.makedirs(storage)
    entry = {'entry_id': uuid.uuid4().hex, 'version': 1, 'minor_version': 1, 'domain': 'mqtt', 'title': '127.0.0.1',
             'data': {'broker': '127.0.0.1', 'port': port, 'discovery': True, 'discovery_prefix': 'homeassistant'},
             'options': {}, 'pref_disable_new_entities': False, 'pref_disable_polling': False, 'source': 'user',
             'unique_id': None, 'disabled_by': None}
    with open(os.path.join(storage, 'core.config_entries'), 'w') as f:
        json.dump({'version': 1, 'minor_version': 1, 'key': 'core.config_entries', 'data': {'entries': [entry]}}, f)


def states(database):
    """Every entity's latest state, from the recorder's database."""
    try:
        db = sqlite3.connect('file:%s?mode=ro' % database, uri=True, timeout=5)
        rows = db.execute('SELECT m.entity_id, s.state FROM states s JOIN states_meta m ON s.metadata_id = m.metadata_id '
                          'ORDER BY s.state_id').fetchall()
        db.close()
    except sqlite3.Error:
        return {}
    return dict(rows)


def history(database, entity):
    """Every state `entity` has had, oldest first."""
    try:
        db = sqlite3.connect('file:%s?mode=ro' % database, uri=True, timeout=5)
        rows = db.execute('SELECT s.state FROM states s JOIN states_meta m ON s.metadata_id = m.metadata_id '
                          'WHERE m.entity_id = ? ORDER BY s.state_id', (entity,)).fetchall()
        db.close()
    except sqlite3.Error:
        return []
    return [r[0] for r in rows]


def light_in_the_middle(png):
    """Light pixels in the middle fifth of a screenshot (where a toast shows), every 2nd pixel."""
    out = subprocess.run(['ffmpeg', '-loglevel', 'error', '-i', '-', '-f', 'rawvideo', '-pix_fmt', 'rgb24',
                          '-vf', 'scale=1280:720', '-'], input=png, capture_output=True)
    raw = out.stdout
    if len(raw) != 1280 * 720 * 3:
        return 0
    light = 0
    for y in range(288, 432, 2):
        for x in range(320, 960, 2):
            i = (y * 1280 + x) * 3
            if raw[i] > 200 and raw[i + 1] > 200 and raw[i + 2] > 200:
                light += 1
    return light


def until(check, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        value = check()
        if value:
            return value
        time.sleep(1)
    return None


def main():
    bin_dir = os.path.abspath(sys.argv[1])
    started = time.monotonic()
    hass, version = environment()
    say('Home Assistant %s' % version)
    directory = tempfile.mkdtemp(prefix='upright-ha-check-')
    processes = []
    cleanups = []
    faults = []
    try:
        port = free_port()
        broker_conf = os.path.join(directory, 'mosquitto.conf')
        with open(broker_conf, 'w') as f:
            f.write('listener %d 127.0.0.1\nallow_anonymous true\n' % port)
        processes.append(subprocess.Popen(['/usr/sbin/mosquitto', '-c', broker_conf], stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL))
        ha_dir = os.path.join(directory, 'ha')
        os.makedirs(ha_dir)
        configure(ha_dir, port)
        ha_log = open(os.path.join(directory, 'hass.log'), 'w')
        processes.append(subprocess.Popen([hass, '-c', ha_dir, '--log-file', os.path.join(directory, 'ha.log')],
                                          stdout=ha_log, stderr=subprocess.STDOUT))
        database = os.path.join(ha_dir, 'states.db')
        def connected():
            log = os.path.join(directory, 'ha.log')
            text = open(log).read() if os.path.exists(log) else ''
            return 'Connected to MQTT server' in text or 'MQTT client initialized' in text
        if not until(connected, 600):
            faults.append('Home Assistant did not connect to the broker within 600 s (see %s)' % directory)
            return faults, directory
        say('Home Assistant is up and connected to mosquitto on 127.0.0.1:%d (%.0f s)' % (
            port, time.monotonic() - started))

        item = 'av://lavfi:color=c=red:s=64x64:r=10' + ',null' * 55
        local = time.localtime()
        minute = local.tm_hour * 60 + local.tm_min

        def hhmm(m):
            return '%02d:%02d' % ((m // 60) % 24, m % 60)
        config = os.path.join(directory, 'upright.toml')
        with open(config, 'w') as f:
            f.write('[lock]\nevdev = "none"\n[player]\nplaylist = ["%s"]\n[screen]\non = "%s"\noff = "%s"\ncec = "off"\n'
                    '[mqtt]\nurl = "mqtt://127.0.0.1:%d"\ndevice = "lobby.1"\nscreenshot_interval = 10\n'
                    % (item, hhmm(minute - 120 + 1440), hhmm(minute + 120), port))
        upright_log = open(os.path.join(directory, 'upright.log'), 'w')
        sway_dir = os.path.join(directory, 'sway')
        sway = start_sway(sway_dir, mode='1280x720')
        cleanups.append(lambda: stop_sway(sway, sway_dir))
        env = dict(os.environ, WAYLAND_DISPLAY=sway['WAYLAND_DISPLAY'], SWAYSOCK=sway['SWAYSOCK'],
                   XDG_RUNTIME_DIR=sway['XDG_RUNTIME_DIR'])
        # A panel's backlight, as the kernel shows one in /sys/class/backlight.
        panel = os.path.join(directory, 'backlight', 'panel')
        os.makedirs(panel)
        for name, value in (('brightness', '128'), ('max_brightness', '255'), ('actual_brightness', '128')):
            with open(os.path.join(panel, name), 'w') as f:
                f.write(value + '\n')
        fake_backlight = os.path.join(HERE, 'with-fake-backlight.sh')
        processes.append(subprocess.Popen([fake_backlight, os.path.dirname(panel),
                                           os.path.join(bin_dir, 'upright'), 'play', '--config', config, '--uri', 'none',
                                           '--vo', 'wlshm', '--no-control'], stdout=subprocess.DEVNULL,
                                          stderr=upright_log, env=env))

        def entities():
            found = {e: s for e, s in states(database).items() if 'upright_lobby_1' in e}
            return found if len(found) >= 14 else None
        found = until(entities, 120) or {e: s for e, s in states(database).items() if 'upright_lobby_1' in e}
        domains = sorted({e.split('.')[0] for e in found})
        say('device lobby.1: %d entities in Home Assistant (%s)' % (len(found), ', '.join(domains)))
        for domain in ['sensor', 'binary_sensor', 'button', 'switch', 'select', 'number', 'text', 'image']:
            if domain not in domains:
                faults.append('no %s entity for the device lobby.1' % domain)

        def playing():
            return next((s for e, s in states(database).items() if 'upright_lobby_1' in e and e.endswith('_playing')
                         and s.startswith('lavfi:color=c=red')), None)
        shown = until(playing, 60)
        say('the playing sensor shows: %s' % (shown[:60] + '…' if shown else None))
        if not shown or len(shown) > 255:
            faults.append('the playing sensor does not show the item\'s title (%r)' % shown)

        subprocess.run(['mosquitto_pub', '-p', str(port), '-t', 'upright/lobby.1/command/rotate-to', '-m', 'sideways'],
                       check=True)

        def refused():
            return next((s for e, s in states(database).items() if 'upright_lobby_1' in e and e.endswith('_refused')
                         and 'sideways' in s), None)
        said = until(refused, 60)
        say('a refused command shows as: %s' % said)
        if not said:
            faults.append('the refused command does not show in Home Assistant')

        def image():
            return next((s for e, s in states(database).items() if e.startswith('image.upright_lobby_1')
                         and s not in ('unknown', 'unavailable')), None)
        shot = until(image, 60)
        say('the screenshot entity has an image, its state (the time of the last one): %s' % shot)
        if not shot:
            faults.append('the screenshot entity shows no image')
        # Home Assistant's own commands (its automation, every 20 s).
        def number_became(entity, value):
            # A number entity's state, once it has been `value` (Home Assistant says "35.0").
            return until(lambda: next((v for v in history(database, 'number.%s_%s' % (NODE, entity))
                                       if v.replace('.0', '') == value), None), 60)
        volume = number_became('volume', '35')
        say('the volume Home Assistant set shows as: %s' % volume)
        if not volume:
            faults.append('the volume set by Home Assistant does not come back as 35')
        toast = until(lambda: TOAST in history(database, 'text.%s_toast' % NODE), 60)
        say('the toast Home Assistant sent shows in its entity: %s' % toast)
        if not toast:
            faults.append('the toast sent by Home Assistant does not show in its entity')

        def toast_on_screen():
            # A screenshot taken while the toast shows (10 s of every 20; one every 10 s).
            shot = subprocess.run(['mosquitto_sub', '-p', str(port), '-t', 'upright/lobby.1/screenshot', '-C', '1',
                                   '-W', '15'], capture_output=True).stdout
            n = light_in_the_middle(shot) if shot.startswith(b'\x89PNG') else 0
            return n if n >= 50 else None
        light = until(toast_on_screen, 90)
        say('a screenshot with the toast: %s light pixels in its middle' % light)
        if not light:
            faults.append('no screenshot shows the toast\'s words')
        brightness = number_became('brightness', '60')
        written = open(os.path.join(panel, 'brightness')).read().strip()
        say('the brightness Home Assistant set: %s in the entity, %s of 255 in the backlight' % (brightness, written))
        if not brightness or written != '153':
            refused = next((s for e, s in states(database).items() if e == 'sensor.%s_refused' % NODE), None)
            faults.append('the brightness set by Home Assistant (60) shows as %s, the backlight holds %s of 255 '
                          '(last refused: %s)' % (brightness, written, refused))
        # Anything Home Assistant said of the discovery, the templates or the entities.
        problems = [line for line in open(os.path.join(directory, 'ha.log')).read().splitlines()
                    if (' ERROR ' in line or ' WARNING ' in line)
                    and ('[homeassistant.components.mqtt' in line or '[homeassistant.helpers.template]' in line)]
        for line in problems[:10]:
            faults.append('Home Assistant logged: %s' % line)
        return faults, directory
    finally:
        for p in reversed(processes):  # Upright, Home Assistant, then the broker they both use
            p.terminate()
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
        for cleanup in cleanups:
            cleanup()
        say('%.0f s' % (time.monotonic() - started))


if __name__ == '__main__':
    faults, directory = main()
    if faults:
        for f in faults:
            say('FAILED: ' + f)
        say('kept for a look: %s' % directory)
        sys.exit(1)
    shutil.rmtree(directory, ignore_errors=True)
    say('passed')
