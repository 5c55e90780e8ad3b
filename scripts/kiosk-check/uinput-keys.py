#!/usr/bin/env python3
"""A kiosk's button box through /dev/uinput (python3-evdev): made, kept while `--hold` lasts,
and pressed once per key name given (KEY_F11 ...). A device that stays (`--stay SECONDS`) is there
before the press, as a real button box is."""
import argparse
import time

from evdev import UInput
from evdev import ecodes as e

parser = argparse.ArgumentParser()
parser.add_argument("--name", default="kiosk-check buttons")
parser.add_argument("--wait", type=float, default=2.0, help="seconds between the device and the first press")
parser.add_argument("--hold", type=float, default=1.0, help="seconds the device stays after the last press")
parser.add_argument("keys", nargs="*")
args = parser.parse_args()
codes = [getattr(e, k) for k in args.keys]
capabilities = {e.EV_KEY: sorted(set(codes) | {e.KEY_F11, e.KEY_NEXTSONG, e.KEY_A})}
with UInput(capabilities, name=args.name, vendor=0x1209, product=0x0001) as device:
    time.sleep(args.wait)
    for code in codes:
        device.write(e.EV_KEY, code, 1)
        device.syn()
        time.sleep(0.05)
        device.write(e.EV_KEY, code, 0)
        device.syn()
        time.sleep(0.3)
        print("pressed", args.keys[codes.index(code)], flush=True)
    time.sleep(args.hold)
