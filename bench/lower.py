#!/usr/bin/env python3
"""Makes "held lower" variants of real walking recordings: the same steps and sways, with the
phone tipped further back, towards lying face up, as people who carry a phone low in front of
them hold it. Each recording is turned as a whole about the horizontal axis that tips its median
gravity towards the screen's normal (+z), by each of the given angles; the motion inside the
recording is untouched. Every segment of the truth becomes ambiguous (any upright orientation or
face-up is right), so what the scorer counts is the flapping between them: where a detector
that knows no face states (Android's) keeps its landscape, one that does may go face-up and back
at each step.

  python3 lower.py --traces DIR --out DIR [--angles 8,12,16]

The labels of the source are not kept: a recording lowered across the upright-flat boundary has
no clear orientation left, only its flaps.
"""
import argparse, csv, glob, json, math, os


def load(path):
    with open(path) as f:
        rows = list(csv.reader(f))[1:]
    return [tuple(map(float, r)) for r in rows if r]


def median(values):
    s = sorted(values)
    return s[len(s) // 2]


def rotation(axis, angle):
    """The rotation matrix about the unit `axis` by `angle` radians (Rodrigues)."""
    x, y, z = axis
    c, s, C = math.cos(angle), math.sin(angle), 1 - math.cos(angle)
    return ((c + x * x * C, x * y * C - z * s, x * z * C + y * s),
            (y * x * C + z * s, c + y * y * C, y * z * C - x * s),
            (z * x * C - y * s, z * y * C + x * s, c + z * z * C))


def lowered(rows, degrees):
    """`rows` turned so that their median gravity leans `degrees` further towards +z."""
    g = [median([r[k] for r in rows]) for k in (1, 2, 3)]
    # The axis: perpendicular to gravity's in-screen part and to z; turning about it moves gravity
    # towards +z (a positive angle about g_xy x z tips g towards z).
    ax, ay = g[1], -g[0]
    n = math.hypot(ax, ay)
    if n < 1e-6:
        return None  # already flat: nothing to lower
    m = rotation((ax / n, ay / n, 0.0), math.radians(degrees))
    out = []
    for t, x, y, z in rows:
        out.append((t, *(m[i][0] * x + m[i][1] * y + m[i][2] * z for i in range(3))))
    gz = sum(m[2][k] * g[k] for k in range(3))
    norm = math.sqrt(sum(v * v for v in g))
    lean = math.degrees(math.acos(max(-1, min(1, gz / norm)))) if norm else 0
    return out, 90 - lean  # the median tilt from upright after lowering


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--traces', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--angles', default='8,12,16')
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    angles = [float(v) for v in a.angles.split(',')]
    made = 0
    for path in sorted(glob.glob(os.path.join(a.traces, '*.csv'))):
        name = os.path.basename(path)[:-4]
        with open(os.path.join(a.traces, name + '.truth.json')) as f:
            truth = json.load(f)
        rows = load(path)
        for angle in angles:
            result = lowered(rows, angle)
            if result is None:
                continue
            out, tilt = result
            stem = '%s_low%02d' % (name, angle)
            with open(os.path.join(a.out, stem + '.csv'), 'w') as f:
                f.write('t,x,y,z\n')
                for r in out:
                    f.write('%.4f,%.4f,%.4f,%.4f\n' % r)
            t = dict(truth)
            t['segments'] = [dict(s, kind='ambiguous' if s['kind'] != 'transition' else 'transition',
                                  expect=['portrait', 'portrait-upside-down', 'landscape-left', 'landscape-right',
                                          'face-up'] if s['kind'] != 'transition' else [])
                             for s in truth['segments']]
            t['description'] = '%s; lowered by %g deg (median tilt %.1f deg from upright)' % (
                truth.get('description', name), angle, tilt)
            t['lowered_deg'] = angle
            with open(os.path.join(a.out, stem + '.truth.json'), 'w') as f:
                json.dump(t, f, indent=1)
            made += 1
    print('wrote %d lowered traces to %s' % (made, a.out))


if __name__ == '__main__':
    main()
