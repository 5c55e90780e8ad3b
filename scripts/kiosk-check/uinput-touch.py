#!/usr/bin/env python3
"""A touchscreen through /dev/uinput (python3-evdev): multi-touch protocol B, the panel's size,
INPUT_PROP_DIRECT (udev's ID_INPUT_TOUCHSCREEN). It is made and stays, as a kiosk's panel does;
each line read from the FIFO `--serve` names points in the panel's own frame ("X,Y X,Y ...",
0 to 1 across and down as the panel draws at transform 0), tapped once each, `--gap` seconds
apart; "quit" ends it."""
import argparse
import time

from evdev import AbsInfo, UInput
from evdev import ecodes as e

parser = argparse.ArgumentParser()
parser.add_argument("--name", default="kiosk-check touchscreen")
parser.add_argument("--size", default="1280x800", help="the panel's size in pixels (its units)")
parser.add_argument("--gap", type=float, default=1.5)
parser.add_argument("--serve", required=True, help="the FIFO the taps are read from")
args = parser.parse_args()
width, height = (int(v) for v in args.size.split("x"))
# Five units a millimetre: a 256 x 160 mm panel, as libinput wants a size.
x_axis = AbsInfo(value=0, min=0, max=width - 1, fuzz=0, flat=0, resolution=5)
y_axis = AbsInfo(value=0, min=0, max=height - 1, fuzz=0, flat=0, resolution=5)
capabilities = {
    e.EV_KEY: [e.BTN_TOUCH],
    e.EV_ABS: [
        (e.ABS_X, x_axis),
        (e.ABS_Y, y_axis),
        (e.ABS_MT_SLOT, AbsInfo(value=0, min=0, max=9, fuzz=0, flat=0, resolution=0)),
        (e.ABS_MT_TRACKING_ID, AbsInfo(value=0, min=0, max=65535, fuzz=0, flat=0, resolution=0)),
        (e.ABS_MT_POSITION_X, x_axis),
        (e.ABS_MT_POSITION_Y, y_axis),
    ],
}


def tap(device, n, fx, fy):
    x, y = round(fx * (width - 1)), round(fy * (height - 1))
    device.write(e.EV_ABS, e.ABS_MT_SLOT, 0)
    device.write(e.EV_ABS, e.ABS_MT_TRACKING_ID, n)
    device.write(e.EV_ABS, e.ABS_MT_POSITION_X, x)
    device.write(e.EV_ABS, e.ABS_MT_POSITION_Y, y)
    device.write(e.EV_KEY, e.BTN_TOUCH, 1)
    device.write(e.EV_ABS, e.ABS_X, x)
    device.write(e.EV_ABS, e.ABS_Y, y)
    device.syn()
    time.sleep(0.1)
    device.write(e.EV_ABS, e.ABS_MT_TRACKING_ID, -1)
    device.write(e.EV_KEY, e.BTN_TOUCH, 0)
    device.syn()


with UInput(capabilities, name=args.name, vendor=0x1209, product=0x0002, input_props=[e.INPUT_PROP_DIRECT]) as device:
    print("ready", flush=True)
    taps = 0
    while True:
        with open(args.serve) as fifo:
            lines = fifo.read().split("\n")
        for line in lines:
            if line.strip() == "quit":
                raise SystemExit(0)
            for point in line.split():
                fx, fy = (float(v) for v in point.split(","))
                taps += 1
                tap(device, taps, fx, fy)
                print("tapped", point, flush=True)
                time.sleep(args.gap)
