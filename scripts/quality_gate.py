#!/usr/bin/env python3
"""The detector's quality gate, read from the scorer's --json output of one trace set.

    scripts/quality_gate.py RULES SCORE.json

RULES names the set's rules (upright beside the references scored in the same run):
  synthetic  hold accuracy >= 99.5 % and no missed hold, spurious rotation, flap, wrong-direction
             report or glitch; at least as good as the best reference on each; latency p95 no worse
             than Android's
  held       real recordings with clear holds: hold accuracy >= 96 % and at least Android's; flaps no
             more than Android's; no wrong-direction report
  cold       the same recordings started while the person walks: hold accuracy >= 95 %, latency
             p95 <= 2 s, no wrong-direction report
  carried    real recordings in pockets and bags: at most 1 spurious rotation, flaps no more than
             Android's, no wrong-direction report
"""
import json
import sys

RULES = ('synthetic', 'held', 'cold', 'carried')


class Gate:
    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = []

    def need(self, ok, text):
        print('%s %-9s %s' % ('ok  ' if ok else 'FAIL', self.name, text))
        if ok:
            self.passed += 1
        else:
            self.failed.append(text)


def percent(x):
    return 100 * (x or 0)


def check(rules, data, gate):
    me = data['upright']['overall']
    refs = {k: v['overall'] for k, v in data.items() if k != 'upright'}
    android = refs.get('android')
    gate.need(me['errors'] == 0 and me['timeouts'] == 0,
              'upright ran on every trace (errors %d, timeouts %d)' % (me['errors'], me['timeouts']))
    gate.need(me['wrong_direction'] == 0, 'wrong-direction reports: %d' % me['wrong_direction'])
    if rules == 'synthetic':
        gate.need(percent(me['hold_accuracy']) >= 99.5, 'hold accuracy %.2f %% >= 99.5 %%' % percent(me['hold_accuracy']))
        for key, label in [('missed_holds', 'missed holds'), ('spurious_rotations', 'spurious rotations'),
                           ('flaps', 'flaps'), ('hold_glitches', 'glitches')]:
            best = min(r[key] for r in refs.values())
            gate.need(me[key] == 0 and me[key] <= best, '%s: %d (best reference %d)' % (label, me[key], best))
        best = max(r['hold_accuracy'] or 0 for r in refs.values())
        gate.need(me['hold_accuracy'] >= best, 'hold accuracy at least the best reference (%.2f %%)' % percent(best))
        if android:
            gate.need(me['latency_p95_s'] <= android['latency_p95_s'] + 1e-9, 'latency p95 %.3f s <= Android %.3f s'
                      % (me['latency_p95_s'], android['latency_p95_s']))
    elif rules == 'held':
        gate.need(percent(me['hold_accuracy']) >= 96, 'hold accuracy %.2f %% >= 96 %%' % percent(me['hold_accuracy']))
        gate.need(me['hold_accuracy'] >= android['hold_accuracy'], 'hold accuracy at least Android\'s (%.2f %%)'
                  % percent(android['hold_accuracy']))
        gate.need(me['flaps'] <= android['flaps'], 'flaps: %d (Android %d)' % (me['flaps'], android['flaps']))
    elif rules == 'cold':
        gate.need(percent(me['hold_accuracy']) >= 95, 'hold accuracy %.2f %% >= 95 %%' % percent(me['hold_accuracy']))
        p95 = me['latency_p95_s']
        gate.need(p95 is not None and p95 <= 2.0, 'latency p95 %s s <= 2 s' % p95)
    elif rules == 'carried':
        gate.need(me['spurious_rotations'] <= 1, 'spurious rotations: %d <= 1' % me['spurious_rotations'])
        gate.need(me['flaps'] <= android['flaps'], 'flaps: %d (Android %d)' % (me['flaps'], android['flaps']))


def main(argv):
    if len(argv) != 3 or argv[1] not in RULES:
        sys.exit('usage: quality_gate.py {%s} SCORE.json' % '|'.join(RULES))
    rules, path = argv[1], argv[2]
    with open(path) as f:
        data = json.load(f)['detectors']
    if rules != 'synthetic' and 'android' not in data:
        sys.exit('quality_gate.py: %s: the %s rules compare with Android, which this run did not score' % (path, rules))
    gate = Gate(rules)
    check(rules, data, gate)
    print('quality gate (%s): %d passed, %d failed' % (rules, gate.passed, len(gate.failed)))
    return 1 if gate.failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
