import Foundation
public import Logging
public import OrientationCore
import Playback
public import Prometheus
public import Sensors
public import ServiceLifecycle
import Session
import Synchronization
import Web
public import Wire

/// The session's Prometheus metrics, all named `upright_…`: the orientations as labelled gauges,
/// turns by cause and strategy, transition and apply times, the sensor's state, the playing item,
/// stalls, restarts and display faults. No file path or title is a label unless `[metrics] items`.
public final class SessionMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    private let items: Bool
    private let deviceGauges: [DeviceOrientation: Gauge]
    private let interfaceGauges: [InterfaceOrientation: Gauge]
    private let sensorGauges: [SensorStatus.State: Gauge]
    private let transitions: ValueHistogram
    private let applies: DurationHistogram
    private let sensorFaults, skippedReadings, stalls, restarts, displayFaults, files, fileFailures: Counter
    private let playlistPosition: Gauge
    private let playing = Mutex<(item: String, gauge: Gauge)?>(nil)
    private let decoderDrops, outputDrops: Gauge
    private let remoteGauges: [String: Gauge]
    private let decoding = Mutex<(hwdec: String, gauge: Gauge)?>(nil)
    private let sensorState = Mutex<(state: SensorStatus.State?, skipped: Int)>((nil, 0))
    /// The wall group's rejected messages counted so far, and its counter (made at the first report).
    private let syncRejected = Mutex<RejectedCount>(RejectedCount())
    public struct RejectedCount {
        var count = 0
        var counter: Counter?
    }

    public static let devices: [DeviceOrientation] = [
        .unknown, .portrait, .portraitUpsideDown, .landscapeLeft, .landscapeRight, .faceUp, .faceDown,
    ]
    public static let states: [SensorStatus.State] = [.reading, .paused, .faulty, .absent, .ended]

    /// A metric's name under `upright_`, its unit's suffix (`total`, `seconds`) and its help text.
    public static func descriptor(_ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "upright", metricName: name, unitName: unit, helpText: help)
    }

    public init(items: Bool = false) {
        self.items = items
        let r = registry
        /// One gauge per value of `label`, of which one at a time is 1.
        func oneOf<K: Hashable>(_ keys: [K], _ name: String, _ help: String, _ label: String, _ text: (K) -> String)
            -> [K: Gauge]
        {
            Dictionary(
                uniqueKeysWithValues: keys.map {
                    ($0, r.makeGauge(descriptor: Self.descriptor(name, "", help), labels: [(label, text($0))]))
                })
        }
        deviceGauges = oneOf(
            Self.devices, "device_orientation", "1 for the device orientation the sensor reports now", "orientation",
            \.name)
        interfaceGauges = oneOf(
            InterfaceOrientation.allCases, "interface_orientation", "1 for the interface orientation shown now",
            "orientation", \.name)
        sensorGauges = oneOf(Self.states, "sensor_state", "1 for the accelerometer's state now", "state", \.rawValue)
        transitions = r.makeValueHistogram(
            descriptor: Self.descriptor("transition", "seconds", "How long each turn's transition lasts"),
            buckets: [0.1, 0.2, 0.3, 0.45, 0.6, 0.9, 1.2])
        applies = r.makeDurationHistogram(
            descriptor: Self.descriptor(
                "output_apply", "seconds", "How long the display backend takes to turn the output"),
            buckets: [
                .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
                .milliseconds(250), .milliseconds(500), .seconds(1),
            ])
        skippedReadings = r.makeCounter(
            descriptor: Self.descriptor("sensor_skipped_readings", "total", "Readings skipped: not a number, or absurd")
        )
        sensorFaults = r.makeCounter(
            descriptor: Self.descriptor("sensor_faults", "total", "Times the accelerometer became faulty"))
        stalls = r.makeCounter(
            descriptor: Self.descriptor("stalls", "total", "Playback stalls (the item was loaded again)"))
        restarts = r.makeCounter(descriptor: Self.descriptor("player_restarts", "total", "Times mpv was started again"))
        displayFaults = r.makeCounter(
            descriptor: Self.descriptor("display_faults", "total", "Turns or probes the display backend failed"))
        files = r.makeCounter(descriptor: Self.descriptor("items_started", "total", "Playlist items started"))
        fileFailures = r.makeCounter(
            descriptor: Self.descriptor("items_failed", "total", "Playlist items that could not be played"))
        playlistPosition = r.makeGauge(descriptor: Self.descriptor("playing", "", "1 while an item plays, 0 when idle"))
        let drops = Self.descriptor(
            "frames_dropped", "", "Frames dropped while the item playing played, by the decoder or the output")
        decoderDrops = r.makeGauge(descriptor: drops, labels: [("by", "decoder")])
        outputDrops = r.makeGauge(descriptor: drops, labels: [("by", "output")])
        remoteGauges = Dictionary(
            uniqueKeysWithValues: Self.remoteStates.map {
                (
                    $0,
                    r.makeGauge(
                        descriptor: Self.descriptor("remote_items", "", "The playlist's remote items in each state"),
                        labels: [("state", $0)])
                )
            })
        device(.unknown)
        interface(.portrait)
    }

    public func device(_ o: DeviceOrientation) { Self.select(o, in: deviceGauges) }

    public func interface(_ o: InterfaceOrientation) { Self.select(o, in: interfaceGauges) }

    /// `key`'s gauge to 1, the others to 0.
    private static func select<K: Hashable>(_ key: K, in gauges: [K: Gauge]) {
        for (k, g) in gauges { g.set(to: k == key ? 1.0 : 0.0) }
    }

    /// A decision: a rotation counts as a turn by its cause and strategy.
    public func decision(_ d: RotationDecision) {
        interface(d.interface)
        guard d.kind == .rotate else { return }
        registry.makeCounter(
            descriptor: Self.descriptor("turns", "total", "Rotations decided, by cause and strategy"),
            labels: [("cause", d.cause), ("strategy", d.strategy.rawValue)]
        ).increment()
    }

    public func transition(_ t: Transition) { transitions.record(t.duration) }

    /// `upright health`'s verdict: `upright_health{verdict="healthy|unhealthy|cannot tell"}`,
    /// 1 for the verdict now (made at the first verdict).
    public func health(_ verdict: String) {
        for v in ["healthy", "unhealthy", "cannot tell"] {
            registry.makeGauge(
                descriptor: Self.descriptor("health", "", "1 for upright health's verdict now"),
                labels: [("verdict", v)]
            ).set(to: v == verdict ? 1 : 0)
        }
    }

    /// The board's health: `upright_temperature_celsius{zone}`, `upright_throttled` (the
    /// firmware's word: bits 0–3 now, 16–19 since boot) and `upright_storage_errors` (the kernel
    /// log's since boot), each made at the first reading that has it.
    public func hardware(_ h: HardwareStatus) {
        for t in h.temperatures {
            registry.makeGauge(
                descriptor: Self.descriptor("temperature", "celsius", "Each thermal zone's temperature"),
                labels: [("zone", t.zone)]
            ).set(to: t.celsius)
        }
        if let word = h.throttled, let v = UInt32(word.dropFirst(2), radix: 16) {
            registry.makeGauge(
                descriptor: Self.descriptor("throttled", "", "The Raspberry Pi firmware's get_throttled word")
            ).set(to: Double(v))
        }
        if let n = h.storageErrors {
            registry.makeGauge(
                descriptor: Self.descriptor("storage_errors", "", "Storage errors the kernel logged since boot")
            ).set(to: Double(n))
        }
    }

    /// A wall's node: its clock's offset to the group's and how far the picture was from the
    /// schedule, in seconds (made at the first report: a screen on its own has neither).
    public func sync(_ report: SyncReport) {
        let gauges = [
            ("sync_offset", "How far this screen's clock is ahead of its wall's group's", report.offsetMS),
            ("sync_error", "How far the picture was ahead of the wall's schedule at the last sample", report.errorMS),
        ]
        for case (let name, let help, let ms?) in gauges {
            registry.makeGauge(
                descriptor: Self.descriptor(name, "seconds", help), labels: [("group", report.group)]
            ).set(to: ms / 1000)
        }
        syncRejected.withLock { (s: inout RejectedCount) in
            let counter =
                s.counter
                ?? registry.makeCounter(
                    descriptor: Self.descriptor(
                        "sync_rejected_messages", "total",
                        "Messages of the wall's group that changed nothing (unsealed, too old, seen before, malformed)"),
                    labels: [("group", report.group)])
            s.counter = counter
            let total = report.rejected ?? 0
            if total > s.count { counter.increment(by: Int64(total - s.count)) }
            s.count = max(s.count, total)
        }
    }

    public func applied(in duration: Duration, failed: Bool) {
        applies.record(duration)
        if failed { displayFaults.increment() }
    }

    public func displayFault() { displayFaults.increment() }

    public func sensor(_ s: SensorStatus) {
        let (before, newlySkipped) = sensorState.withLock { previous in
            defer { previous = (s.state, max(previous.skipped, s.skippedValues)) }
            return (previous.state, max(0, s.skippedValues - previous.skipped))
        }
        if s.state == .faulty, before != .faulty { sensorFaults.increment() }
        if newlySkipped > 0 { skippedReadings.increment(by: Int64(newlySkipped)) }
        Self.select(s.state, in: sensorGauges)
    }

    public func stalled() { stalls.increment() }
    public func restarted() { restarts.increment() }
    public func fileFailed() { fileFailures.increment() }

    /// An item started (`nil`: nothing left to play, idle).
    public func playing(_ item: String?) {
        if item != nil { files.increment() }
        playlistPosition.set(to: item == nil ? 0.0 : 1.0)
        guard items else { return }
        if let item {
            registry.makeCounter(
                descriptor: Self.descriptor("item_plays", "total", "Times each item started (metrics.items = true)"),
                labels: [("item", item)]
            ).increment()
        }
        playing.withLock { current in
            if let current { registry.unregisterGauge(current.gauge) }
            current = item.map { i in
                let g = registry.makeGauge(
                    descriptor: Self.descriptor("playing_info", "", "The item playing (metrics.items = true)"),
                    labels: [("item", i)])
                g.set(to: 1.0)
                return (i, g)
            }
        }
    }

    public static let remoteStates = ["cached", "stale", "downloading", "missing", "uncached"]

    /// How many remote items are in each state.
    public func remote(_ items: [RemoteItemStatus]) {
        for (state, gauge) in remoteGauges { gauge.set(to: Double(items.filter { $0.state == state }.count)) }
    }

    /// mpv's decoder and the frames dropped for the item playing (`nil`: no video plays).
    public func decoder(_ report: DecoderReport?) {
        decoderDrops.set(to: Double(report?.decoderDrops ?? 0))
        outputDrops.set(to: Double(report?.outputDrops ?? 0))
        decoding.withLock { current in
            guard current?.hwdec != report?.hwdec else { return }
            if let current { registry.unregisterGauge(current.gauge) }
            current = report.map { r in
                let g = registry.makeGauge(
                    descriptor: Self.descriptor(
                        "decoder_info", "", "1 for mpv's video decoder now (software or hardware)"),
                    labels: [("hwdec", r.hwdec)])
                g.set(to: 1.0)
                return (r.hwdec, g)
            }
        }
    }

    /// The metrics in Prometheus's text format.
    public var text: String { registry.emitToString() }
}

/// Writes the metrics for node-exporter's textfile collector every `interval` seconds, atomically:
/// into a temporary file in the same directory, then renamed over the `.prom` file, so a scrape
/// never reads half of one. A write that fails is logged once, retried at the next interval.
public struct TextfileService: Service {
    public let metrics: SessionMetrics
    public let path: String
    public let interval: Double
    public let logger: Logger

    public init(metrics: SessionMetrics, path: String, interval: Double, logger: Logger) {
        (self.metrics, self.path, self.interval, self.logger) = (metrics, path, interval, logger)
    }

    public func run() async throws {
        var failing: String?
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let problem = Self.write(metrics.text, to: path)
            if problem != failing {
                if let problem {
                    logger.warning("metrics: cannot write \(path): \(problem); trying again")
                } else if failing != nil {
                    logger.notice("metrics: writing \(path) again")
                }
                failing = problem
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(interval)) }
        }
    }

    /// Writes `text` to `path` atomically; the reason when it cannot.
    public static func write(_ text: String, to path: String) -> String? {
        let temporary =
            (path as NSString).deletingLastPathComponent + "/.\((path as NSString).lastPathComponent).\(getpid())"
        guard
            FileManager.default.createFile(
                atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o644])
        else { return String(cString: strerror(errno)) }
        guard rename(temporary, path) == 0 else {
            let e = String(cString: strerror(errno))
            unlink(temporary)
            return e
        }
        return nil
    }
}

/// The metrics endpoint, served until the group shuts down. An address that cannot be bound
/// (in use, not local) is logged and tried again every 10 s; playback never waits for it.
public struct MetricsService: Service {
    public let metrics: SessionMetrics
    public let host: String
    public let port: Int
    public let logger: Logger

    public init(metrics: SessionMetrics, host: String, port: Int, logger: Logger) {
        (self.metrics, self.host, self.port, self.logger) = (metrics, host, port, logger)
    }

    public func run() async throws {
        var said: String?
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let app = MetricsEndpoint.application(
                    host: host, port: port, text: { metrics.text }, logger: logger
                ) { [host, logger] bound in
                    logger.info("metrics: http://\(host.contains(":") ? "[\(host)]" : host):\(bound)/metrics")
                }
                try await app.run()
                return
            } catch {
                let why = "\(error)"
                if why != said {
                    logger.error("metrics: cannot listen on \(host):\(port): \(why); trying again every 10 s")
                }
                said = why
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(10)) }
            }
        }
    }
}
