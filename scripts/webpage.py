"""`upright play` with the operator's page on loopback, for the scripts that check or load it."""
import os
import socket
import subprocess
import time
import urllib.request

PASSWORD = 'correct horse battery'


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def start_page(bin_dir, directory, config=''):
    """`upright play` in `directory` with the page on a free port of loopback behind PASSWORD, and
    `config` (more TOML) after it; returns the process and the page's base URL, once it answers."""
    port = free_port()
    subprocess.run([os.path.join(bin_dir, 'upright'), 'web-password', '--file', directory + '/pw', '--cost', '10'],
                   input=PASSWORD + '\n', text=True, check=True, capture_output=True)
    with open(directory + '/u.toml', 'w') as f:
        f.write('[lock]\nevdev = "none"\n[web]\nlisten = "127.0.0.1:%d"\npassword_file = "%s/pw"\n%s\n'
                % (port, directory, config))
    p = subprocess.Popen([os.path.join(bin_dir, 'upright'), 'play', '--config', directory + '/u.toml', '--uri', 'none',
                          '--vo', 'null', '--control', directory + '/control.sock'],
                         stdout=subprocess.DEVNULL, stderr=open(directory + '/stderr', 'w'))
    base = 'http://127.0.0.1:%d' % port
    for _ in range(100):
        try:
            urllib.request.urlopen(base + '/login', timeout=1)
            break
        except OSError:
            time.sleep(0.1)
    return p, base
