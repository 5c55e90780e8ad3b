import Foundation
import Glibc
import OrientationCore

/// The restore record: the output's transform before Upright turned it (and the desktop's
/// rotation lock it found, which Upright holds while it owns the output), in a small file of the
/// runtime directory, so that the next start puts it back when this run died.
extension DisplayController {
    struct State: Codable {
        var backend: String
        var output: String
        var clockwise: Int
        var pid: Int32
        /// The desktop's auto-rotation lock to put back (Upright locked it).
        var desktopLocked: Bool?
        var transform: OutputTransform { OutputTransform(clockwise: clockwise) }
    }

    /// The restore record's path.
    public var statePath: String { "\(stateDirectory)/display-\(backend.kind.rawValue).json" }

    func readState() -> State? {
        guard let data = FileManager.default.contents(atPath: statePath) else { return nil }
        return try? JSONDecoder().decode(State.self, from: data)
    }

    func writeState(output: String, transform: OutputTransform) {
        let state = State(
            backend: backend.kind.rawValue, output: output, clockwise: transform.clockwise, pid: getpid(),
            desktopLocked: desktopLockFound)
        let url = URL(fileURLWithPath: statePath)
        try? FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        if let data = try? JSONEncoder().encode(state) { try? data.write(to: url, options: .atomic) }
    }

    func removeState() { try? FileManager.default.removeItem(atPath: statePath) }

    func processAlive(_ pid: Int32) -> Bool { kill(pid, 0) == 0 || errno == EPERM }

    /// The desktop's own auto-rotation (GNOME's `orientation-lock`): locked while Upright owns the
    /// output (kiosk mode); what to name among the rotation owners, where the desktop has one.
    func holdDesktopRotation() async -> String? {
        guard let locked = await backend.desktopRotationLocked() else { return nil }
        if settings.kiosk, !locked {
            do {
                try await backend.setDesktopRotationLocked(true)
                desktopLockFound = false
            } catch {
                return RotationOwners.gnome(locked: false, kiosk: false) + "; it cannot be locked: \(error)"
            }
        }
        return RotationOwners.gnome(locked: locked, kiosk: settings.kiosk)
    }
}
