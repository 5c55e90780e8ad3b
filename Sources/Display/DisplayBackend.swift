public import Settings

/// One output as a backend reports it.
public struct OutputState: Sendable, Hashable {
    /// A mode's size in pixels.
    /// A mode, `WIDTHxHEIGHT`.
    public typealias Mode = DisplayMode

    public var name: String
    public var active: Bool
    /// The current transform; `nil` when the compositor does not say (or uses a flipped one).
    public var transform: OutputTransform?
    /// The current mode in the panel's own pixels (before the transform), when known.
    public var mode: Mode?
    /// The output has the focus, or shows Upright's window.
    public var showsUpright: Bool
    /// The backend can turn this output at run time.
    public var canRotate: Bool
    /// The monitor plugged in, "Make Model Serial" as its EDID names it (and kanshi writes it);
    /// `nil` when the backend does not say.
    public var identity: String?

    /// Whether `wanted` (`[display] output`, a udev rule's `WL_OUTPUT`) names this output: its
    /// connector, or its monitor's whole identity with runs of spaces as one.
    public func isNamed(_ wanted: String) -> Bool {
        name == wanted || identity.map(MonitorIdentity.normalised) == MonitorIdentity.normalised(wanted)
    }

    public init(
        name: String, active: Bool = true, transform: OutputTransform? = .normal,
        mode: Mode? = nil, showsUpright: Bool = false, canRotate: Bool = true, identity: String? = nil
    ) {
        self.identity = identity
        self.name = name
        self.active = active
        self.transform = transform
        self.showsUpright = showsUpright
        self.canRotate = canRotate
        self.mode = mode
    }
}

/// The backends Upright knows, by their configuration name.
public enum DisplayBackendKind: String, Sendable, CaseIterable {
    case sway, wlroots, gnome, kde, x11, none
}

/// A failure of a display backend, worded for the log and the status line.
public struct DisplayError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ message: String) { description = message }
}

/// Turns whole outputs: a compositor or an X server. The calls are asynchronous: a socket's
/// exchange goes through ``Blocking``, a helper program (``HelperProgram``) through swift-subprocess.
public protocol DisplayBackend: Sendable {
    var kind: DisplayBackendKind { get }
    /// Where it talks to (a socket path, a display name), for logs and `upright doctor`.
    var endpoint: String { get }
    /// Every output, as the backend reports it now.
    func outputs() async throws(DisplayError) -> [OutputState]
    /// Turns `output` to `transform`.
    func setTransform(_ transform: OutputTransform, of output: OutputState) async throws(DisplayError)
    /// Makes touch input follow `output` at `transform`; returns the devices it mapped.
    func mapTouch(to output: OutputState, transform: OutputTransform) async throws(DisplayError) -> [String]
    /// The touch devices the compositor has now, where it maps them itself on Upright's word
    /// (sway): one that appears (plugged in, or found late) is mapped at the next look.
    func touchDevices() async -> [String]
    /// Yields whenever the outputs may have changed (plugged, enabled, turned by someone else);
    /// finishes when the compositor goes away, where the backend can tell.
    func changes() -> AsyncStream<Void>
    /// Whether the desktop's own auto-rotation is locked now; `nil` for a desktop that has none
    /// Upright can hold (GNOME's `orientation-lock` key).
    func desktopRotationLocked() async -> Bool?
    /// Locks the desktop's own auto-rotation (while Upright owns the output) or unlocks it.
    func setDesktopRotationLocked(_ locked: Bool) async throws(DisplayError)
    /// Switches `output`'s screen off (power saving) or on.
    func setPower(_ on: Bool, of output: OutputState) async throws(DisplayError)
}

extension DisplayBackend {
    /// No power control.
    public func setPower(_ on: Bool, of output: OutputState) async throws(DisplayError) {
        throw DisplayError("the \(kind.rawValue) backend cannot switch the screen off")
    }

    /// No touch devices to map as they appear (mapped at each turn, or by the desktop itself).
    public func touchDevices() async -> [String] { [] }

    /// No desktop auto-rotation to hold.
    public func desktopRotationLocked() async -> Bool? { nil }
    public func setDesktopRotationLocked(_ locked: Bool) async throws(DisplayError) {}

    /// Where the backend has no events: a look every second.
    public func changes() -> AsyncStream<Void> {
        AsyncStream { continuation in
            let ticker = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    continuation.yield()
                }
            }
            continuation.onTermination = { _ in ticker.cancel() }
        }
    }
}

/// No display backend: nothing turns but the video surface.
public struct NoDisplayBackend: DisplayBackend {
    public var kind: DisplayBackendKind { .none }
    public var endpoint: String { "none" }
    public init() {}
    public func outputs() async throws(DisplayError) -> [OutputState] { [] }
    public func setTransform(_ transform: OutputTransform, of output: OutputState) async throws(DisplayError) {
        throw DisplayError("no display backend turns outputs")
    }
    public func mapTouch(to output: OutputState, transform: OutputTransform) async throws(DisplayError) -> [String] {
        []
    }
    public func changes() -> AsyncStream<Void> { AsyncStream { $0.finish() } }
}
