public import OrientationCore
public import Settings

/// What the device-orientation monitor reports.
public enum MonitorEvent: Sendable, Hashable {
    /// The device orientation as UIKit's `UIDevice` would give it: `unknown` while paused (locked).
    case orientation(DeviceOrientation, change: OrientationClassifier.Change?)
    case status(SensorStatus)
}

/// The device orientation stream: the sensor, classified on its own thread. Paused (the rotation
/// lock is on: the session decides that, and says so with ``setPaused(_:)``), the orientation
/// reads `unknown` and regular polling stops; resumed, polling goes on and the classifier starts
/// afresh, so the first report after it is the device's orientation now. While the sensor is
/// absent or faulty the orientation reads `unknown` too, and the classifier starts afresh when
/// readings come back.
public actor OrientationMonitor {
    public nonisolated let events: AsyncStream<MonitorEvent>
    private let continuation: AsyncStream<MonitorEvent>.Continuation
    private let control = SensorControl()
    private var paused: Bool
    private var current: DeviceOrientation = .unknown
    private var tasks: [Task<Void, Never>] = []

    /// Starts reading the sensor (paused from the start when the lock is configured on).
    public init(sensor: SensorSettings, parameters: OrientationClassifier.Parameters = .init(), paused: Bool) {
        (events, continuation) = AsyncStream.makeStream(of: MonitorEvent.self)
        self.paused = paused
        control.setPaused(paused)
        let stream = SensorSource.orientations(sensor, parameters: parameters, control: control)
        Task { await self.start(stream) }
    }

    private func start(_ stream: AsyncStream<SensorEvent>) {
        tasks.append(
            Task {
                for await e in stream { self.sensor(e) }
            })
    }

    /// Pauses the sensor (the rotation lock is on) or resumes it.
    public func setPaused(_ on: Bool) {
        guard on != paused else { return }
        paused = on
        control.setPaused(on)
        if on {
            if current != .unknown { continuation.yield(.orientation(.unknown, change: nil)) }
        } else {
            current = .unknown
            control.restartClassifier()
        }
    }

    public var isPaused: Bool { paused }
    public var orientation: DeviceOrientation { paused ? .unknown : current }
    /// The last reading the classifier had (what the operator's page draws), any thread.
    public nonisolated var gravity: GravitySample? { control.lastSample }

    /// Stops reading; the event stream finishes.
    public func stop() {
        control.stop()
        for t in tasks { t.cancel() }
        continuation.finish()
    }

    private func sensor(_ e: SensorEvent) {
        switch e {
        case .status(let s):
            continuation.yield(.status(s))
            // No readings: the device's orientation is not known (the status says why). The classifier
            // starts afresh, so that the first report once readings come back is the orientation then.
            if s.state == .absent || s.state == .faulty, current != .unknown {
                current = .unknown
                control.restartClassifier()
                if !paused { continuation.yield(.orientation(.unknown, change: nil)) }
            }
        case .change(let c):
            guard !paused else { return }
            current = c.orientation
            continuation.yield(.orientation(c.orientation, change: c))
        case .sample: break
        }
    }
}
