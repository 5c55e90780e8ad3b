#!/usr/bin/python3
"""The operator's page in a real headless Chromium (selenium and chromedriver, Debian's), as an
operator uses it: log in, read the status, click "Fullscreen", upload a clip, save a configuration
with an error. Each step prints one JSON line of what the page showed; the Swift test compares them
with `upright ctl status`. Screenshots at a phone's and a desktop's width go to OUT_DIR.

  web_browser_check.py URL PASSWORD CLIP CONFIG_ERROR_TEXT OUT_DIR

Steps are driven by lines on standard input ("status", "fullscreen", "upload", "config",
"screenshots", "quit"), so the test can look at Upright between them.
"""
import json
import os
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

url, password, clip, bad_config, out_dir = sys.argv[1:6]


def say(**fields):
    print(json.dumps(fields), flush=True)


def until(check, seconds=10):
    return WebDriverWait(driver, seconds, poll_frequency=0.1).until(lambda _: check())


options = webdriver.ChromeOptions()
profile = os.path.join(out_dir, 'chromium-profile')
for argument in ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
                 '--window-size=1280,900', '--user-data-dir=' + profile]:
    options.add_argument(argument)
driver_log = os.path.join(out_dir, 'chromedriver.log')
try:
    driver = webdriver.Chrome(options=options, service=Service(log_path=driver_log, service_args=['--verbose']))
except Exception as e:  # said, with chromedriver's own account, for the test's failure message
    tail = open(driver_log, errors='replace').read()[-3000:] if os.path.exists(driver_log) else ''
    say(step='error', error=str(e)[:500], driver_log=tail)
    sys.exit(1)
try:
    driver.get(url)
    # No session: the log-in page.
    say(step='login-page', title=driver.title, has_password=bool(driver.find_elements(By.ID, 'password')))
    driver.find_element(By.ID, 'password').send_keys(password)
    driver.find_element(By.CSS_SELECTOR, 'form button[type=submit]').click()
    until(lambda: driver.find_element(By.ID, 'connection').text == 'live')
    say(step='logged-in', title=driver.title)
    for line in sys.stdin:
        step = line.strip()
        if step == 'status':
            until(lambda: driver.find_element(By.ID, 's-interface').text not in ('', '–'))
            say(step='status', device=driver.find_element(By.ID, 's-device').text,
                interface=driver.find_element(By.ID, 's-interface').text,
                scene=driver.find_element(By.ID, 's-scene').text,
                playing=driver.find_element(By.ID, 's-playing').text)
        elif step == 'fullscreen':
            driver.find_element(By.CSS_SELECTOR, 'button.action[data-command=fullscreen]').click()
            until(lambda: driver.find_element(By.ID, 'answer').text.startswith('Fullscreen:'))
            until(lambda: 'fullscreen' in driver.find_element(By.ID, 's-scene').text, 5)
            say(step='fullscreen', answer=driver.find_element(By.ID, 'answer').text,
                scene=driver.find_element(By.ID, 's-scene').text)
        elif step == 'upload':
            driver.find_element(By.ID, 'upload-file').send_keys(clip)
            driver.find_element(By.CSS_SELECTOR, '#upload button[type=submit]').click()
            until(lambda: driver.find_element(By.ID, 'upload-answer').text != '', 30)
            name = clip.rsplit('/', 1)[-1]
            answer = driver.find_element(By.ID, 'upload-answer').text
            listed = False
            try:
                until(lambda: name in driver.find_element(By.ID, 'content').text)
                listed = True
            except Exception:
                pass
            say(step='upload', answer=answer, listed=listed)
        elif step == 'playing':
            name = clip.rsplit('/', 1)[-1]
            try:
                until(lambda: name in driver.find_element(By.ID, 's-playing').text, 20)
            except Exception:
                pass
            say(step='playing', playing=driver.find_element(By.ID, 's-playing').text)
        elif step == 'config':
            until(lambda: driver.find_element(By.ID, 'config-text').get_attribute('value') != '')
            area = driver.find_element(By.ID, 'config-text')
            original = area.get_attribute('value')
            driver.execute_script('arguments[0].value = arguments[1]', area, original + bad_config)
            driver.find_element(By.ID, 'config-save').click()
            until(lambda: driver.find_element(By.ID, 'config-problems').text != '')
            say(step='config', problems=driver.find_element(By.ID, 'config-problems').text,
                lines=len(original.split('\n')))
        elif step == 'screenshots':
            for width, height, name in [(390, 844, 'phone'), (1280, 900, 'desktop')]:
                driver.set_window_size(width, height)
                time.sleep(1)
                full = driver.execute_script('return document.documentElement.scrollHeight')
                driver.set_window_size(width, min(full + 140, 4000))
                time.sleep(1)
                driver.save_screenshot('%s/web-%s.png' % (out_dir, name))
            say(step='screenshots')
        elif step == 'quit':
            break
finally:
    driver.quit()
