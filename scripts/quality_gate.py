#!/usr/bin/env python3
"""The detector's quality gate, read from the scorer's --json output.

upright must hold accuracy >= 99.5 % with no missed hold, no spurious rotation, no flap, no
wrong-direction report and no glitch; be at least as good as the best reference detector on each
of those; and have a detection latency p95 no worse than the Android reference's.
"""
import json
import sys


def main(path):
    data = json.load(open(path))['detectors']
    me = data['upright']['overall']
    refs = {k: v['overall'] for k, v in data.items() if k != 'upright'}
    failures = []

    def need(ok, text):
        print(('ok    ' if ok else 'FAIL  ') + text)
        if not ok:
            failures.append(text)

    need(me['errors'] == 0 and me['timeouts'] == 0, 'upright ran on every trace (errors %d, timeouts %d)'
         % (me['errors'], me['timeouts']))
    need(me['hold_accuracy'] is not None and me['hold_accuracy'] >= 0.995,
         'hold accuracy %.2f %% >= 99.5 %%' % (100 * (me['hold_accuracy'] or 0)))
    for key, label in [('missed_holds', 'missed holds'), ('spurious_rotations', 'spurious rotations'),
                       ('flaps', 'flaps'), ('wrong_direction', 'wrong-direction reports'),
                       ('hold_glitches', 'glitches')]:
        best = min(r[key] for r in refs.values())
        need(me[key] == 0 and me[key] <= best, '%s: %d (best reference %d)' % (label, me[key], best))
    best_acc = max(r['hold_accuracy'] or 0 for r in refs.values())
    need(me['hold_accuracy'] >= best_acc, 'hold accuracy at least the best reference (%.2f %%)' % (100 * best_acc))
    if 'android' in refs:
        a = refs['android']['latency_p95_s']
        need(me['latency_p95_s'] <= a + 1e-9, 'latency p95 %.3f s <= Android %.3f s' % (me['latency_p95_s'], a))
    if failures:
        print('quality gate: %d passed, %d failed' % (9 - len(failures) if 'android' in refs else 8 - len(failures),
                                                       len(failures)))
        return 1
    print('quality gate passed')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
