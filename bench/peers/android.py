#!/usr/bin/env python3
"""Android's screen-orientation detector, as a bench detector.

    python3 bench/peers/android.py TRACE.csv

Ported for this project from the Android Open Source Project's
frameworks/base/services/core/java/com/android/server/policy/WindowOrientationListener.java, the
accelerometer judge (AccelSensorJudge) that phones and tablets have used since Android 4.1: a
200 ms low-pass of the acceleration; a proposal only while the filtered magnitude is within 4 m/s² of
g, the screen is tilted no more than the rotation's limit and the device is not overhead; 40 ms of
settling, and waits after being flat (1 s beyond 80° of tilt), after a swing (the tilt growing by 20°
within 300 ms) and after acceleration. A proposal is taken as applied at once, as the window manager
does for an app that follows the sensor. Android has no face-up or face-down: lying flat keeps the
last rotation.

Times are kept in nanoseconds and angles rounded to whole degrees, as the Java code does. The trace's
device frame is Android's sensor frame (x toward the right edge, y toward the top, z out of the
screen), so the samples need no conversion. Touch input, which Android also waits for, has no
counterpart in a trace.
"""
import math
import sys

G = 9.80665
MS = 1_000_000
SETTLE = 40 * MS
AFTER_FLAT = 500 * MS
AFTER_SWING = 300 * MS
AFTER_ACCELERATION = 500 * MS
FLAT_ANGLE = 80
FLAT_TIME = 1000 * MS
SWING_ANGLE = 20
SWING_TIME = 300 * MS
MAX_FILTER_GAP = 1000 * MS
FILTER_MS = 200.0
NEAR_ZERO = 1.0
MIN_MAGNITUDE, MAX_MAGNITUDE = G - 4.0, G + 4.0
MAX_TILT = 80
OVERHEAD_ENTER, OVERHEAD_EXIT = -40, -15
ADJACENT_GAP = 45
# The tilt each rotation accepts (degrees: lower, upper), for 0, 90, 180 and 270.
TILT_RANGE = ((-25, 70), (-25, 65), (-25, 60), (-25, 65))
HISTORY = 200
# Android's rotations as the trace's device orientations (ROTATION_90: the top edge to the left).
NAMES = ('portrait', 'landscape-left', 'portrait-upside-down', 'landscape-right')


class Judge:
    def __init__(self):
        self.current = -1            # the rotation in force (what the window manager applied)
        self.last_t = None
        self.fx = self.fy = self.fz = 0.0
        self.reset()

    def reset(self):
        self.last_t = None
        self.proposed = -1
        self.predicted = -1
        self.predicted_since = 0
        self.flat_at = self.swing_at = self.acceleration_at = -(1 << 62)
        self.overhead = False
        self.tilts = []              # (t, tilt) newest last, at most HISTORY

    def feed(self, t, x, y, z):
        """Returns the new rotation when the proposal changes to one, else None."""
        skip = self.last_t is None or t < self.last_t or t > self.last_t + MAX_FILTER_GAP or (x == 0 and y == 0 and z == 0)
        if skip:
            self.reset()
        else:
            dt_ms = (t - self.last_t) / MS
            alpha = dt_ms / (FILTER_MS + dt_ms)
            x = self.fx + alpha * (x - self.fx)
            y = self.fy + alpha * (y - self.fy)
            z = self.fz + alpha * (z - self.fz)
        self.last_t = t
        self.fx, self.fy, self.fz = x, y, z
        if not skip:
            self.judge(t, x, y, z)
        before = self.proposed
        if self.predicted < 0 or self.acceptable(t):
            self.proposed = self.predicted
        if self.proposed != before and self.proposed >= 0:
            self.current = self.proposed
            return self.proposed
        return None

    def judge(self, t, x, y, z):
        magnitude = math.sqrt(x * x + y * y + z * z)
        if magnitude < NEAR_ZERO:
            self.predicted = -1
            return
        if magnitude < MIN_MAGNITUDE or magnitude > MAX_MAGNITUDE:
            self.acceleration_at = t
        tilt = int(round(math.degrees(math.asin(max(-1.0, min(1.0, z / magnitude))))))
        self.tilts.append((t, tilt))
        if len(self.tilts) > HISTORY:
            del self.tilts[0]
        if self.is_flat(t):
            self.flat_at = t
        if self.is_swinging(t, tilt):
            self.swing_at = t
        if tilt <= OVERHEAD_ENTER:
            self.overhead = True
        elif tilt >= OVERHEAD_EXIT:
            self.overhead = False
        if self.overhead or abs(tilt) > MAX_TILT:
            self.predicted = -1
            return
        angle = int(round(-math.degrees(math.atan2(-x, y))))
        if angle < 0:
            angle += 360
        nearest = (angle + 45) // 90 % 4
        low, high = TILT_RANGE[nearest]
        if low <= tilt <= high and self.angle_acceptable(nearest, angle):
            if self.predicted != nearest:
                self.predicted = nearest
                self.predicted_since = t
        else:
            self.predicted = -1

    def is_flat(self, t):
        # Beyond the flat angle for the whole of the last second of history.
        for when, tilt in reversed(self.tilts):
            if tilt < FLAT_ANGLE:
                return False
            if when + FLAT_TIME <= t:
                return True
        return False

    def is_swinging(self, t, tilt):
        # The tilt grew by the swing angle within the swing time.
        for when, old in reversed(self.tilts):
            if when + SWING_TIME < t:
                return False
            if old + SWING_ANGLE <= tilt:
                return True
        return False

    def angle_acceptable(self, rotation, angle):
        """Hysteresis against the rotation in force: a neighbour must be 22 degrees past the 45 degree
        boundary, and the current rotation is kept that far past it too."""
        current = self.current
        if current < 0:
            return True
        half_gap = ADJACENT_GAP // 2
        if rotation == current or rotation == (current + 1) % 4:
            low = rotation * 90 - 45 + half_gap
            if rotation == 0:
                if 315 <= angle < low + 360:
                    return False
            elif angle < low:
                return False
        if rotation == current or rotation == (current + 3) % 4:
            high = rotation * 90 + 45 - half_gap
            if rotation == 0:
                if high < angle <= 45:
                    return False
            elif angle > high:
                return False
        return True

    def acceptable(self, t):
        return (t >= self.predicted_since + SETTLE and t >= self.flat_at + AFTER_FLAT
                and t >= self.swing_at + AFTER_SWING and t >= self.acceleration_at + AFTER_ACCELERATION)


def main(path):
    judge = Judge()
    out = sys.stdout
    with open(path) as f:
        header = f.readline()
        if header.strip() != 't,x,y,z':
            sys.exit('android.py: %s: expected the header t,x,y,z, found %r' % (path, header.strip()))
        for number, line in enumerate(f, start=2):
            if not line.strip():
                continue
            try:
                t, x, y, z = (float(v) for v in line.split(','))
            except ValueError:
                sys.exit('android.py: %s:%d: expected four numbers t,x,y,z, found %r' % (path, number, line.strip()))
            rotation = judge.feed(int(round(t * 1e9)), x, y, z)
            if rotation is not None:
                out.write('{"t": %.6f, "orientation": "%s"}\n' % (t, NAMES[rotation]))


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: android.py TRACE.csv')
    main(sys.argv[1])
