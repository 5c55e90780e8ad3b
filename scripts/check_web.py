#!/usr/bin/env python3
"""The operator's page through the checks its users' IT would run, on a real `upright play` with
the page on loopback (a password, an upload folder that plays):

1. the W3C Nu HTML checker on /login and the logged-in page: 0 errors;
2. axe-core in a real headless Chromium (selenium) on both: 0 serious or critical violations;
3. wapiti's scan of the page, logged in (HTTP Basic, which the page takes for reading): nothing found.

  scripts/check_web.py BIN_DIR VNU_JAR AXE_MIN_JS
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from webpage import PASSWORD, start_page  # noqa: E402


def start(bin_dir, directory):
    os.makedirs(directory + '/media')
    subprocess.run(['ffmpeg', '-loglevel', 'error', '-f', 'lavfi', '-i', 'color=c=blue:s=320x240', '-frames:v', '1',
                    directory + '/media/blue.png'], check=True)
    return start_page(bin_dir, directory, '[player]\nplaylist = ["%s/media"]' % directory)


def pages(base, directory):
    """/login and the logged-in page, as files. (The session's cookie is `Secure` on loopback, which
    Python's cookie jar keeps for HTTPS: it is sent by hand.)"""
    import http.client
    host = urllib.parse.urlparse(base).netloc
    c = http.client.HTTPConnection(host, timeout=10)
    c.request('GET', '/login')
    login = c.getresponse().read()
    c.request('POST', '/login', body=urllib.parse.urlencode({'password': PASSWORD}),
              headers={'Content-Type': 'application/x-www-form-urlencoded'})
    r = c.getresponse()
    r.read()
    cookie = next(v.split(';')[0] for k, v in r.getheaders() if k.lower() == 'set-cookie' and 'upright_session=' in v)
    c.request('GET', '/', headers={'Accept': 'text/html', 'Cookie': cookie})
    main = c.getresponse().read()
    files = []
    for name, html in (('login.html', login), ('page.html', main)):
        with open(os.path.join(directory, name), 'wb') as f:
            f.write(html)
        files.append(os.path.join(directory, name))
    return files


def nu(vnu, files):
    r = subprocess.run(['java', '-jar', vnu, '--errors-only', '--format', 'json'] + files, capture_output=True,
                       text=True)
    messages = json.loads(r.stderr or r.stdout or '{"messages": []}').get('messages', [])
    errors = [m for m in messages if m.get('type') == 'error']
    print('The W3C Nu HTML checker, /login and the logged-in page: %d errors' % len(errors))
    for m in errors:
        print('  %s:%s: %s' % (os.path.basename(m.get('url', '')), m.get('lastLine', '?'), m.get('message')))
    return not errors


def axe(base, script):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    options = webdriver.ChromeOptions()
    for a in ('--headless=new', '--no-sandbox', '--disable-gpu', '--window-size=1280,900'):
        options.add_argument(a)
    options.binary_location = '/usr/bin/chromium'
    driver = webdriver.Chrome(service=Service('/usr/bin/chromedriver'), options=options)
    bad = []
    try:
        axe_js = open(script).read()

        def run(name):
            driver.execute_script(axe_js)
            result = driver.execute_async_script(
                'const done = arguments[arguments.length - 1];'
                'axe.run(document, {resultTypes: ["violations"]}).then(r => done(r.violations));')
            found = [v for v in result if v.get('impact') in ('serious', 'critical')]
            print('axe-core %s, %s: %d violations, %d serious or critical'
                  % (driver.execute_script('return axe.version'), name, len(result), len(found)))
            for v in result:
                print('  %s (%s): %s' % (v['id'], v.get('impact'), v['help']))
            bad.extend(found)

        driver.get(base + '/login')
        run('/login')
        driver.find_element(By.NAME, 'password').send_keys(PASSWORD)
        driver.find_element(By.CSS_SELECTOR, 'button[type=submit], input[type=submit]').click()
        time.sleep(3)  # the status arrives, the preview loads
        run('the logged-in page')
    finally:
        driver.quit()
    return not bad


def wapiti(base, directory):
    report = os.path.join(directory, 'wapiti.json')
    credentials = 'operator%' + PASSWORD
    # The routes the page's script calls, which no crawler finds in its HTML; the default modules
    # with CRLF, CSRF, backup files and open redirects, but not SSRF (it asks a server on the
    # Internet for its results).
    routes = ['/login', '/api/status', '/api/config', '/api/content', '/api/screenshot.png', '/metrics',
              '/api/events', '/static/page.css', '/static/login.js']
    starts = [a for route in routes for a in ('-s', base + route)]
    modules = 'blindsql,cookieflags,csp,exec,file,http_headers,permanentxss,redirect,sql,xss,crlf,csrf,backup'
    r = subprocess.run(['wapiti', '-u', base + '/', '--scope', 'folder', '-a', credentials, '--auth-type', 'basic',
                        '-m', modules, '-f', 'json', '-o', report, '--flush-session', '--max-scan-time', '600',
                        '-v', '0'] + starts, capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(report):
        print('wapiti did not finish: %s' % (r.stderr.strip()[-500:] or r.returncode))
        return False
    data = json.load(open(report))
    found = {k: v for k, v in data.get('vulnerabilities', {}).items() if v}
    anomalies = {k: v for k, v in data.get('anomalies', {}).items() if v}
    print('%s, logged in (HTTP Basic), from %d routes: %d vulnerabilities, %d anomalies'
          % (data.get('infos', {}).get('version', 'wapiti'), len(routes) + 1, sum(map(len, found.values())),
             sum(map(len, anomalies.values()))))
    for kind, items in list(found.items()) + list(anomalies.items()):
        for item in items:
            print('  %s: %s %s: %s' % (kind, item.get('method'), item.get('path'), item.get('info')))
    return not found and not anomalies


def main():
    bin_dir, vnu, axe_js = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    directory = tempfile.mkdtemp(prefix='upright-check-web-')
    p, base = start(bin_dir, directory)
    try:
        results = [nu(vnu, pages(base, directory)), axe(base, axe_js), wapiti(base, directory)]
    finally:
        p.terminate()
        p.wait(timeout=10)
        shutil.rmtree(directory, ignore_errors=True)
    print('check-web: %s' % ('passed' if all(results) else 'FAILED'))
    sys.exit(0 if all(results) else 1)


if __name__ == '__main__':
    main()
