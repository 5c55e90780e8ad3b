public import Input
public import OrientationCore

/// What the device-orientation monitor reports.
public enum MonitorEvent: Sendable, Hashable {
    /// The device orientation as UIKit's `UIDevice` would give it: `unknown` while locked.
    case orientation(DeviceOrientation, change: OrientationClassifier.Change?)
    /// The rotation lock changed, and what changed it.
    case lock(Bool, source: LockSource)
    case status(SensorStatus)
}

/// The device orientation stream: the sensor, classified on its own thread, and the rotation lock
/// from its three sources. While locked the orientation reads `unknown` and regular polling stops;
/// on unlock polling resumes and the classifier starts afresh, so the first report after it is the
/// device's orientation now. While the sensor is absent or faulty the orientation reads `unknown`
/// too, and the classifier starts afresh when readings come back.
public actor OrientationMonitor {
    public nonisolated let events: AsyncStream<MonitorEvent>
    private let continuation: AsyncStream<MonitorEvent>.Continuation
    private let control = SensorControl()
    private var lock: RotationLockState
    private var current: DeviceOrientation = .unknown
    private var tasks: [Task<Void, Never>] = []

    /// Starts reading the sensor. The lock switch's events come from the input hub, through
    /// ``lockSwitch(_:)``.
    public init(
        sensor: SensorSettings, parameters: OrientationClassifier.Parameters = .init(), lock settings: LockSettings
    ) {
        (events, continuation) = AsyncStream.makeStream(of: MonitorEvent.self)
        lock = RotationLockState(configured: settings.locked)
        control.setPaused(settings.locked)
        continuation.yield(.lock(settings.locked, source: .configuration))
        let stream = SensorSource.orientations(sensor, parameters: parameters, control: control)
        Task { await self.start(stream) }
    }

    private func start(_ stream: AsyncStream<SensorEvent>) {
        tasks.append(
            Task {
                for await e in stream { self.sensor(e) }
            })
    }

    /// The rotation-lock switch moved, or its key was pressed.
    public func lockSwitch(_ e: LockSwitchEvent) {
        if lock.apply(e) { applyLock() }
    }

    /// The lock on or off, from a command.
    public func setLocked(_ on: Bool) {
        if lock.command(locked: on) { applyLock() }
    }

    public var isLocked: Bool { lock.locked }
    public var orientation: DeviceOrientation { lock.locked ? .unknown : current }

    /// Stops reading; the event stream finishes.
    public func stop() {
        control.stop()
        for t in tasks { t.cancel() }
        continuation.finish()
    }

    private func applyLock() {
        continuation.yield(.lock(lock.locked, source: lock.source))
        control.setPaused(lock.locked)
        if lock.locked {
            if current != .unknown { continuation.yield(.orientation(.unknown, change: nil)) }
        } else {
            current = .unknown
            control.restartClassifier()
        }
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
                if !lock.locked { continuation.yield(.orientation(.unknown, change: nil)) }
            }
        case .change(let c):
            guard !lock.locked else { return }
            current = c.orientation
            continuation.yield(.orientation(c.orientation, change: c))
        case .sample: break
        }
    }
}
