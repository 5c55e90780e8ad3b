import Foundation
import OrientationCore
import Settings

/// The accelerometer polled at the configured rate on the sensor's thread: found (and found again
/// after a fault, with backoff from 0.25 s doubling to 1.5 s: a device back is read within 2 s), read, checked, and paused while the
/// rotation lock is on. Every change of its health is reported once.
struct Poller {
    let settings: SensorSettings
    let control: SensorControl
    let continuation: Relay
    private var accelerometer: Accelerometer?
    private var selfCheck = ScaleCheck()
    private var backoff = 0.25
    private var skipped = 0
    private var lastStatus: SensorStatus?
    private var next = monotonicSeconds()

    init(settings: SensorSettings, control: SensorControl, continuation: Relay) {
        self.settings = settings
        self.control = control
        self.continuation = continuation
    }

    private var period: Double { 1 / max(0.1, settings.rateHz) }

    mutating func run() {
        while !control.isStopped {
            if control.isPaused {
                if let a = accelerometer {
                    report(.paused, a, "polling stopped while the rotation lock is on")
                }
                control.waitWhilePaused()
                next = monotonicSeconds()
                if let a = accelerometer, !control.isStopped {
                    report(.reading, a, "polling resumed (the rotation lock is off); " + describe(a))
                }
            } else if let a = accelerometer {
                if poll(a) { waitForTheNextPoll() }
            } else {
                connect()
            }
        }
    }

    private mutating func report(_ s: SensorStatus) {
        guard s != lastStatus else { return }
        lastStatus = s
        continuation.yield(.status(s))
    }

    private mutating func report(_ state: SensorStatus.State, _ a: Accelerometer, _ message: String) {
        report(
            SensorStatus(
                state: state, device: "\(a.label) at \(settings.uri)", message: message, skippedValues: skipped))
    }

    /// Finds the accelerometer, or reports why not and waits before the next try.
    private mutating func connect() {
        do {
            let a = try Accelerometer(settings: settings)
            accelerometer = a
            backoff = 0.25
            report(.reading, a, describe(a))
            next = monotonicSeconds()
        } catch {
            let state: SensorStatus.State
            switch error {
            case .noAccelerometer, .noSuchDevice: state = .absent
            default: state = .faulty
            }
            report(SensorStatus(state: state, message: error.description + "; retrying", skippedValues: skipped))
            control.sleep(until: monotonicSeconds() + backoff)
            backoff = min(backoff * 2, 1.5)
        }
    }

    /// What is read and how, raising the device's sampling frequency when it samples slower than
    /// the poll (it would hand out stale readings).
    private func describe(_ a: Accelerometer) -> String {
        var message =
            "reading \(a.label) at \(settings.uri), \(a.valueAttribute) values, mount matrix "
            + "\(a.matrix) from the \(a.matrixSource.rawValue)"
        if !a.notes.isEmpty { message += "; " + a.notes.joined(separator: "; ") }
        if let odr = a.samplingFrequency, odr < settings.rateHz {
            do {
                try a.setSamplingFrequency(settings.rateHz)
                message += "; sampling frequency raised from \(odr) to \(settings.rateHz) Hz"
            } catch {
                message += "; the device samples at \(odr) Hz, under the \(settings.rateHz) Hz poll: \(error)"
            }
        }
        return message
    }

    /// One reading; false when the accelerometer was lost (it is found again at once).
    private mutating func poll(_ a: Accelerometer) -> Bool {
        do {
            let v = try a.read()
            let limit = 16 * standardGravity
            if abs(v.x) > limit || abs(v.y) > limit || abs(v.z) > limit {
                skip(a) { "skipped \($0) absurd reading(s), the last (\(v.x), \(v.y), \(v.z)) m/s²" }
            } else {
                continuation.yield(.sample(GravitySample(t: monotonicSeconds(), x: v.x, y: v.y, z: v.z)))
                if let warning = selfCheck.add(v, device: a.label) { report(.reading, a, warning) }
            }
            return true
        } catch {
            if case .badValue = error {
                skip(a) { "skipped \($0) reading(s): \(error)" }
                return true
            }
            accelerometer = nil
            report(.faulty, a, "lost the accelerometer: \(error); finding it again")
            return false
        }
    }

    /// A skipped reading is counted; the first and every hundredth are reported, not each one.
    private mutating func skip(_ a: Accelerometer, _ message: (Int) -> String) {
        skipped += 1
        guard skipped == 1 || skipped % 100 == 0 else { return }
        report(.reading, a, message(skipped))
    }

    /// Sleeps until the next poll; a change that settles before it is reported when it settles.
    private mutating func waitForTheNextPoll() {
        next += period
        let now = monotonicSeconds()
        if next < now - period { next = now }  // fell behind: do not try to catch up in a burst
        if let due = continuation.deadline(), due < next {
            control.sleep(until: due)
            continuation.tick(max(due, monotonicSeconds()))
        }
        control.sleep(until: next)
    }
}
