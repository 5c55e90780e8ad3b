#!/usr/bin/env python3
"""Writes synthetic labelled traces of two rare cases, in the scorer's format (NAME.csv and
NAME.truth.json), at random rates, noise and sensor errors:

- rest_steep_N: a tablet leaned back onto a steep stand, resting at 72-78 degrees of tilt for
  several seconds (an ambiguous dwell: any change is a flap), sometimes sliding on to lie flat
  (face-up) and lifted back through the same band;
- handover_N: a tablet held upright, lowered to 55-75 degrees of tilt, turned about the vertical
  to face a person across a table (the in-screen angle sweeps through other orientations),
  swung back and forth a little while it is passed over at up to 79.5 degrees (a hold of its new orientation, at high
  tilt: any change is a glitch), then raised upright by that person.

  python3 rare_cases.py --out DIR [--seed N] [--count K]

Written for Upright's robustness run; they reproduce no recorded trace.
"""
import argparse, json, math, os, random

G = 9.80665
NAMES = {0: 'portrait', 90: 'landscape-left', 180: 'portrait-upside-down', 270: 'landscape-right'}


def vector(angle, tilt):
    a, t = math.radians(angle), math.radians(tilt)
    return (G * math.cos(t) * math.sin(a), G * math.cos(t) * math.cos(a), G * math.sin(t))


class Trace:
    def __init__(self, rng, t0):
        self.rng = rng
        self.rate = rng.choice([10, 25, 50, 100])
        self.noise = rng.uniform(0.01, 0.06)
        self.bias = [rng.uniform(-0.2, 0.2) for _ in range(3)]
        self.scale = [rng.uniform(0.97, 1.03) for _ in range(3)]
        self.t = t0
        self.start = t0
        self.angle, self.tilt = 0.0, 15.0
        self.rows, self.segments = [], []

    def sample(self, angle, tilt):
        v = vector(angle, tilt)
        r = [v[i] * self.scale[i] + self.bias[i] + self.rng.gauss(0, self.noise) for i in range(3)]
        self.rows.append((self.t, *r))
        self.t += 1.0 / self.rate * (1 + self.rng.uniform(-0.1, 0.1))

    def move(self, seconds, angle=None, tilt=None, wobble=0.0, wobble_tilt=0.0):
        """Eases from the pose now to (angle, tilt) over `seconds`, with a slow wobble added."""
        a0, t0 = self.angle, self.tilt
        a1 = a0 if angle is None else angle
        t1 = t0 if tilt is None else tilt
        end = self.t + seconds
        phase = self.rng.uniform(0, 2 * math.pi)
        hz = self.rng.uniform(0.3, 0.8)
        begin = self.t
        while self.t < end:
            w = (self.t - begin) / seconds
            e = w * w * (3 - 2 * w)
            s = math.sin(2 * math.pi * hz * (self.t - begin) + phase)
            self.sample(a0 + (a1 - a0) * e + wobble * s, t0 + (t1 - t0) * e + wobble_tilt * s)
        self.angle, self.tilt = a1, t1

    def segment(self, kind, t0, expect=()):
        self.segments.append({'t0': round(t0, 4), 't1': round(self.t, 4), 'expect': list(expect), 'kind': kind,
                              'flat_ok_keep_last': False})

    def write(self, out, name):
        with open(os.path.join(out, name + '.csv'), 'w') as f:
            f.write('t,x,y,z\n')
            for r in self.rows:
                f.write('%.4f,%.4f,%.4f,%.4f\n' % r)
        with open(os.path.join(out, name + '.truth.json'), 'w') as f:
            json.dump({'grace_s': 1.0, 'segments': self.segments}, f, indent=1)


def step(tr, kind, seconds, expect=(), **pose):
    """One move of the script and its truth segment."""
    start = tr.t
    tr.move(seconds, **pose)
    tr.segment(kind, start, expect)


def dwell(tr, rng, repeats):
    """Settling on the stand: slow drifts between 72 and 78 degrees, never past them (ambiguous)."""
    start = tr.t
    for _ in range(repeats):
        tr.move(rng.uniform(1.5, 3), tilt=rng.uniform(72.3, 77.7))
    tr.segment('ambiguous', start)


def rest_steep(rng, t0):
    tr = Trace(rng, t0)
    tr.angle, tr.tilt = 0.0, rng.uniform(10, 25)
    step(tr, 'hold', rng.uniform(3, 4), ['portrait'])
    step(tr, 'transition', rng.uniform(1.2, 2.5), tilt=rng.uniform(73.5, 76.5))
    dwell(tr, rng, rng.randint(2, 4))
    if rng.random() < 0.5:
        # On to lie flat, then lifted back through the band.
        step(tr, 'transition', rng.uniform(1, 2), tilt=rng.uniform(84, 89))
        step(tr, 'hold', rng.uniform(3, 4), ['face-up'])
        step(tr, 'transition', rng.uniform(0.8, 1.5), tilt=rng.uniform(73.5, 76.5))
        dwell(tr, rng, rng.randint(2, 3))
    step(tr, 'transition', rng.uniform(0.8, 1.5), tilt=rng.uniform(10, 25))
    step(tr, 'hold', rng.uniform(3, 4), ['portrait'])
    return tr


def handover(rng, t0):
    tr = Trace(rng, t0)
    first = rng.choice([0, 90, 270])
    turn = rng.choice([180, -180, 90, -90])
    last = (first + turn) % 360
    tr.angle, tr.tilt = float(first), rng.uniform(10, 25)
    start = tr.t
    tr.move(rng.uniform(3, 4))
    tr.segment('hold', start, [NAMES[first]])
    start = tr.t
    tilt = rng.uniform(55, 70)
    tr.move(rng.uniform(0.8, 1.5), tilt=tilt)
    # Turned about the vertical in steps, the tilt wandering, then slightly past and back.
    steps = 2 if abs(turn) == 180 else 1
    for k in range(1, steps + 1):
        tr.move(rng.uniform(0.5, 1.0), angle=first + turn * k / steps, tilt=rng.uniform(55, 75))
    tr.segment('transition', start)
    start = tr.t
    # Passed over: swung back and forth by up to 35 degrees about the new orientation, at 55-79.5 degrees.
    for _ in range(rng.randint(2, 4)):
        tr.move(rng.uniform(0.4, 0.9), angle=first + turn + rng.uniform(-35, 35), tilt=rng.uniform(55, 79.5))
    tr.move(rng.uniform(0.8, 1.5), angle=first + turn, tilt=rng.uniform(10, 25))
    tr.move(rng.uniform(3, 4))
    tr.segment('hold', start, [NAMES[last]])
    return tr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out', required=True)
    ap.add_argument('--seed', type=int, default=7)
    ap.add_argument('--count', type=int, default=12)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = random.Random(a.seed)
    for i in range(a.count):
        t0 = rng.choice([0.0, rng.uniform(100, 5000)])
        rest_steep(rng, t0).write(a.out, 'rest_steep_%02d' % i)
        handover(rng, t0).write(a.out, 'handover_%02d' % i)
    print('%d traces written to %s' % (2 * a.count, a.out))


if __name__ == '__main__':
    main()
