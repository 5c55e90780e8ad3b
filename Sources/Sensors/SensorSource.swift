import Blocking
import Foundation
public import OrientationCore
public import Settings
import Synchronization

/// What a sensor source reports: readings, and changes of its health.
public enum SensorEvent: Sendable, Hashable {
    case sample(GravitySample)
    case status(SensorStatus)
    /// A change of the device orientation, from a source that classifies on its own thread
    /// (``SensorSource/orientations(_:parameters:control:)``).
    case change(OrientationClassifier.Change)
}

/// The sensor's health, for logs and the status command.
public struct SensorStatus: Sendable, Hashable, CustomStringConvertible {
    public enum State: String, Sendable, Hashable {
        /// Reading samples.
        case reading
        /// Polling stopped while the rotation lock is on.
        case paused
        /// The device cannot be read now; retrying.
        case faulty
        /// No accelerometer (none configured, or none found); retrying.
        case absent
        /// A replay ended.
        case ended
    }

    public var state: State
    /// The device in use (`iio:device0 (accel_3d) at local:`), when there is one.
    public var device: String?
    /// Why, in a sentence.
    public var message: String
    /// Readings skipped because a value was not a number or was absurd.
    public var skippedValues: Int

    public init(state: State, device: String? = nil, message: String, skippedValues: Int = 0) {
        self.state = state
        self.device = device
        self.message = message
        self.skippedValues = skippedValues
    }

    public var description: String { "sensor \(state.rawValue): \(message)" }
}

/// Controls a running source from any thread: pause while locked, resume, stop. The source's
/// thread waits on it (``wait(until:)``): a change wakes it at once, with no polling.
public final class SensorControl: Sendable {
    private struct State {
        var paused = false
        var stopped = false
        var generation = 0
    }

    // NSCondition is thread-safe; `state` is read and written only while holding it.
    private let condition = NSCondition()
    nonisolated(unsafe) private var state = State()
    private let last = Mutex<GravitySample?>(nil)

    public init() {}

    /// The last reading classified; kept apart from `state`, whose changes wake the reader.
    public var lastSample: GravitySample? { last.withLock { $0 } }
    func note(_ sample: GravitySample) { last.withLock { $0 = sample } }

    private func change(_ body: (inout State) -> Void) {
        condition.lock()
        body(&state)
        condition.broadcast()
        condition.unlock()
    }

    private func read<T>(_ body: (State) -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body(state)
    }

    /// Stops regular polling (the rotation lock is on) or starts it again.
    public func setPaused(_ paused: Bool) { change { $0.paused = paused } }
    /// Ends the source; its stream finishes.
    public func stop() { change { $0.stopped = true } }

    /// Asks a classifying source to start afresh (after the lock: the device may have turned).
    public func restartClassifier() { change { $0.generation += 1 } }
    var generation: Int { read { $0.generation } }

    public var isPaused: Bool { read { $0.paused } }
    public var isStopped: Bool { read { $0.stopped } }

    /// Waits until the monotonic time `deadline` (`nil`: no deadline) or until the control changes
    /// (paused, resumed, stopped), whichever comes first; true when the deadline came.
    @discardableResult
    func wait(until deadline: Double?) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let before = (state.paused, state.stopped)
        while (state.paused, state.stopped) == before {
            guard let deadline else {
                condition.wait()
                continue
            }
            let left = deadline - monotonicSeconds()
            // A timed-out wait ends here: the wall clock it is measured on may run a hair ahead of
            // the monotonic one, and waiting again for the rest would cost a second wake-up.
            if left <= 0 || !condition.wait(until: Date(timeIntervalSinceNow: left)) { return true }
        }
        return false
    }

    /// Waits while the source is paused (and not stopped).
    func waitWhilePaused() {
        while isPaused, !isStopped { wait(until: nil) }
    }

    /// Waits until the source is stopped.
    func waitForStop() {
        while !isStopped { wait(until: nil) }
    }

    /// Waits until `deadline` unless stopped first.
    func sleep(until deadline: Double) {
        while !isStopped, monotonicSeconds() < deadline {
            if wait(until: deadline) { return }
        }
    }
}

/// Monotonic seconds (`CLOCK_MONOTONIC`), the time base of live samples.
public func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// Sleeps until the monotonic time `deadline`, or for at most `cap` seconds, whichever comes first.
func sleep(until deadline: Double, cap: Double = 0.05) {
    let dt = min(cap, deadline - monotonicSeconds())
    guard dt > 0 else { return }
    var ts = timespec(tv_sec: Int(dt), tv_nsec: Int((dt - Double(Int(dt))) * 1e9))
    nanosleep(&ts, nil)
}

/// Opens the sensor a URI names, as a stream of events produced on a dedicated thread (blocking C
/// reads never run on the cooperative pool).
///
/// - `local:`, `ip:HOST[:PORT]` and the other libiio URIs: the accelerometer through libiio, polled at
///   `rateHz`. A fault is reported and retried with backoff (0.25 s doubling to 5 s); the device is
///   found again when it comes back. Values that are not numbers or are absurd (beyond 16 g) are
///   skipped and counted.
/// - `replay:FILE.csv[?loop=1][&speed=N]`: a recorded trace in real time.
/// - `none`: no accelerometer; the stream reports `absent` and stays open.
public enum SensorSource {
    public static func open(_ settings: SensorSettings, control: SensorControl = SensorControl())
        -> AsyncStream<SensorEvent>
    {
        start(settings, control: control) { $0 }
    }

    /// The device orientation from a sensor: the classifier runs on the sensor's own thread, so the
    /// stream carries only changes and status (no hop to another thread per reading: the cheapest
    /// way to watch a sensor for a long time).
    public static func orientations(
        _ settings: SensorSettings, parameters: OrientationClassifier.Parameters = .init(),
        control: SensorControl = SensorControl()
    ) -> AsyncStream<SensorEvent> {
        // The classifier is touched only by the sensor thread, which alone calls this closure.
        nonisolated(unsafe) var classifier = OrientationClassifier(parameters: parameters)
        // Likewise the generation it last saw: read and written only by the sensor thread.
        nonisolated(unsafe) var generation = 0
        return start(
            settings, control: control,
            transform: { event in
                guard case .sample(let s) = event else { return event }
                control.note(s)
                let g = control.generation
                if g != generation {
                    generation = g
                    classifier = OrientationClassifier(parameters: parameters)
                }
                return classifier.feed(s).map(SensorEvent.change)
            },
            deadline: { classifier.settleDeadline },
            advance: { t in classifier.advance(to: t).map(SensorEvent.change) })
    }

    /// Starts the sensor thread; `transform` runs on it for every event, and what it returns is sent.
    static func start(
        _ settings: SensorSettings, control: SensorControl,
        transform: @escaping @Sendable (SensorEvent) -> SensorEvent?,
        deadline: @escaping @Sendable () -> Double? = { nil },
        advance: @escaping @Sendable (Double) -> SensorEvent? = { _ in nil }
    ) -> AsyncStream<SensorEvent> {
        let (stream, raw) = AsyncStream.makeStream(of: SensorEvent.self, bufferingPolicy: .bufferingNewest(4096))
        let continuation = Relay(continuation: raw, transform: transform, deadline: deadline, advance: advance)
        raw.onTermination = { _ in control.stop() }
        // libiio writes to iiod's socket without MSG_NOSIGNAL: a server that goes away must give an
        // error to retry, not a SIGPIPE that ends the process.
        signal(SIGPIPE, SIG_IGN)
        Blocking.thread(named: "upright-sensor") {
            switch settings.uri {
            case .replay(let spec):
                runReplay(spec, control: control, continuation)
            case .none:
                continuation.yield(
                    .status(SensorStatus(state: .absent, message: "no sensor is configured (uri = \"none\")")))
                control.waitForStop()
            case .iio:
                runPoller(settings, control: control, continuation)
            }
            continuation.finish()
        }
        return stream
    }

    static func runPoller(_ settings: SensorSettings, control: SensorControl, _ continuation: Relay) {
        var poller = Poller(settings: settings, control: control, continuation: continuation)
        poller.run()
    }

    /// `replay:FILE.csv?loop=1&speed=N`.
    static func runReplay(_ spec: ReplaySpec, control: SensorControl, _ continuation: Relay) {
        let trace: Trace
        do {
            trace = try Trace.load(path: spec.path)
        } catch {
            continuation.yield(.status(SensorStatus(state: .absent, message: "cannot replay: \(error)")))
            control.waitForStop()
            return
        }
        guard let first = trace.samples.first, let last = trace.samples.last else {
            continuation.yield(.status(SensorStatus(state: .ended, message: "\(spec.path) has no samples")))
            return
        }
        continuation.yield(
            .status(
                SensorStatus(
                    state: .reading, device: "replay of \(spec.path)",
                    message: "replaying \(trace.samples.count) samples from \(spec.path) at \(spec.speed)x"
                        + (spec.loop ? ", looping" : ""))))
        let span =
            last.t - first.t + (trace.samples.count > 1 ? (last.t - first.t) / Double(trace.samples.count - 1) : 0.1)
        var start = monotonicSeconds()
        repeat {
            for s in trace.samples {
                let due = start + (s.t - first.t) / spec.speed
                control.sleep(until: due)
                if control.isStopped { return }
                if control.isPaused { continue }
                continuation.yield(.sample(GravitySample(t: due, x: s.x, y: s.y, z: s.z)))
            }
            start += span / spec.speed
        } while spec.loop && !control.isStopped
        continuation.yield(
            .status(
                SensorStatus(
                    state: .ended, device: "replay of \(spec.path)",
                    message: "the replay of \(spec.path) ended")))
        control.waitForStop()
    }
}

/// Warns once about the first readings: |g| far from 9.81 m/s² (a wrong scale or offset), or, at
/// rest, an axis that looks inverted.
struct ScaleCheck {
    private var sum = 0.0, count = 0, done = false
    private var sx = 0.0, sy = 0.0, sz = 0.0

    /// Adds a reading; after the first 50 returns a warning when their average is far from g (a
    /// wrong scale), or when, at rest, they say the screen faces the floor or stands upside down:
    /// a kiosk or a tablet that is being set up rarely does, while an axis inverted by a missing or
    /// wrong mount matrix does exactly that.
    mutating func add(_ v: (x: Double, y: Double, z: Double), device: String) -> String? {
        guard !done else { return nil }
        let m = (v.x * v.x + v.y * v.y + v.z * v.z).squareRoot()
        sum += m
        sx += v.x
        sy += v.y
        sz += v.z
        count += 1
        guard count >= 50 else { return nil }
        done = true
        let mean = sum / Double(count)
        if abs(mean - standardGravity) > 0.2 * standardGravity {
            return "\(device): |g| averages \(mean.fixed(2)) m/s² over the first \(count) readings, "
                + "far from 9.81: its scale (in_accel_scale) or offset looks wrong"
        }
        let n = Double(count), g = standardGravity
        let (x, y, z) = (sx / n, sy / n, sz / n)
        // At rest: the mean vector is as long as the readings (nothing was averaged away by motion).
        guard (x * x + y * y + z * z).squareRoot() > 0.95 * mean else { return nil }
        if z < -0.8 * g {
            return "\(device): at rest it reads the screen facing the floor (z = \(Int(z.rounded())) m/s²): "
                + "the z axis looks inverted; check the mount matrix (upright doctor shows it)"
        }
        if y < -0.8 * g {
            return "\(device): at rest it reads the screen upside down (y = \(Int(y.rounded())) m/s²): "
                + "if it stands upright, the y axis looks inverted or the axes swapped; check the mount matrix"
        }
        return nil
    }
}

/// The sensor thread's end of the stream: each event goes through the transform first.
struct Relay: Sendable {
    let continuation: AsyncStream<SensorEvent>.Continuation
    let transform: @Sendable (SensorEvent) -> SensorEvent?
    /// For a classifying source: when a pending change would commit with no new reading
    /// (``OrientationClassifier/settleDeadline``), and the call that commits it then.
    var deadline: @Sendable () -> Double? = { nil }
    var advance: @Sendable (Double) -> SensorEvent? = { _ in nil }

    func yield(_ event: SensorEvent) {
        if let e = transform(event) { continuation.yield(e) }
    }

    /// Commits a settled change at `t` between polls, if there is one.
    func tick(_ t: Double) {
        if let e = advance(t) { continuation.yield(e) }
    }

    func finish() { continuation.finish() }
}
