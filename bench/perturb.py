#!/usr/bin/env python3
"""Makes robustness variants of labelled traces: the same motion resampled at another rate with
jitter, dropped samples and a gap, and a different sensor (scale and bias errors, noise,
quantisation). The truth file is copied unchanged (its segments are in trace time).

  python3 perturb.py --traces DIR --out DIR [--seed N] [--variants K] [--rates 10,25,400]

A detector tuned on the originals should score the same on these; a drop shows over-fitting.
"""
import argparse, bisect, csv, glob, json, os, random, shutil


def load(path):
    with open(path) as f:
        rows = list(csv.reader(f))[1:]
    return [tuple(map(float, r)) for r in rows if r]


def interp(rows, ts, t):
    i = bisect.bisect_right(ts, t)
    if i <= 0:
        return rows[0][1:]
    if i >= len(rows):
        return rows[-1][1:]
    (t0, *a), (t1, *b) = rows[i - 1], rows[i]
    w = (t - t0) / (t1 - t0) if t1 > t0 else 0.0
    # Shakes and taps are short: nearest sample keeps their peaks, as a sensor sampling them would.
    if abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[2] - b[2]) > 3.0:
        return a if w < 0.5 else b
    return tuple(p + (q - p) * w for p, q in zip(a, b))


RATES = (10, 12.5, 25, 50, 100, 200, 400)


def variant(rows, rng, rates=RATES):
    rate = rng.choice(rates)
    jitter = rng.uniform(0.0, 0.25)
    drop = rng.uniform(0.0, 0.05)
    scale = [rng.uniform(0.95, 1.05) for _ in range(3)]
    bias = [rng.uniform(-0.35, 0.35) for _ in range(3)]
    noise = rng.uniform(0.0, 0.08)
    lsb = rng.choice([0.0, 0.00958, 0.03831, 0.0766])
    ts = [r[0] for r in rows]
    t, end = rows[0][0], rows[-1][0]
    gap_at = rng.uniform(t, end) if rng.random() < 0.5 else None
    out = []
    while t <= end:
        if gap_at is not None and t >= gap_at:
            t += rng.uniform(0.2, 0.9)
            gap_at = None
            continue
        if rng.random() >= drop:
            v = interp(rows, ts, t)
            vals = []
            for k in range(3):
                x = v[k] * scale[k] + bias[k] + rng.gauss(0, noise)
                if lsb:
                    x = round(x / lsb) * lsb
                vals.append(max(-19.6, min(19.6, x)) if lsb else x)
            out.append((t, *vals))
        t += (1.0 / rate) * (1 + rng.uniform(-jitter, jitter))
    return out, dict(rate=rate, jitter=round(jitter, 3), drop=round(drop, 3), noise=round(noise, 3), lsb=lsb)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--traces', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--seed', type=int, default=7)
    ap.add_argument('--variants', type=int, default=3)
    ap.add_argument('--rates', default=','.join('%g' % r for r in RATES),
                    help='sample rates (Hz) to pick from, comma-separated (default %(default)s)')
    a = ap.parse_args()
    try:
        rates = [float(r) for r in a.rates.split(',')]
    except ValueError:
        ap.error('--rates %r: expected numbers separated by commas, such as 10,100,400' % a.rates)
    if not rates or min(rates) <= 0:
        ap.error('--rates %r: every rate must be above 0 Hz' % a.rates)
    rng = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    for f in sorted(glob.glob(os.path.join(a.traces, '*.csv'))):
        base = os.path.basename(f)[:-4]
        rows = load(f)
        for k in range(a.variants):
            out, info = variant(rows, rng, rates)
            name = os.path.join(a.out, '%s_v%d' % (base, k))
            with open(name + '.csv', 'w') as fh:
                fh.write('t,x,y,z\n')
                for r in out:
                    fh.write('%.4f,%.4f,%.4f,%.4f\n' % r)
            shutil.copyfile(f[:-4] + '.truth.json', name + '.truth.json')
            print(name, info)


if __name__ == '__main__':
    main()
