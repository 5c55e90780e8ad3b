import Foundation

/// Other programs that turn outputs and may fight Upright over the transform, found among the
/// running processes (`/proc/PID/comm`).
public enum RotationOwners {
    /// What each known one does, by its process name.
    static let known: [String: String] = [
        "kanshi":
            "sets each output's transform from its profile at every hotplug; in kiosk mode Upright "
            + "turns the output back within a second (leave `transform` out of kanshi's profile to spare the flicker)",
        // /proc's comm holds 15 characters.
        "iio-sensor-prox":
            "iio-sensor-proxy, the desktop's sensor service, feeds GNOME's and KDE's auto-rotation; a driver it has "
            + "put in buffer mode may refuse plain sysfs reads (then point Upright at the same device through iiod, "
            + "or stop it: systemctl mask iio-sensor-proxy)",
    ]

    /// KDE's own auto-rotation, which Upright cannot hold off.
    public static let kde =
        "KDE's auto-rotation (KWin, per output): Upright cannot hold it off; set Automatic rotation to Never "
        + "for this output in System Settings › Display Configuration"

    /// What a desktop's own auto-rotation will do beside Upright, in words; `nil` when the
    /// desktop has none Upright knows of.
    public static func desktop(_ backend: any DisplayBackend, kiosk: Bool) async -> String? {
        switch backend.kind {
        case .kde: return kde
        case .gnome: return await backend.desktopRotationLocked().map { gnome(locked: $0, kiosk: kiosk) }
        default: return nil
        }
    }

    /// GNOME's auto-rotation, its `orientation-lock` key as found: Upright holds it locked in kiosk
    /// mode; on a shared desktop, unlocked, GNOME turns the screen too.
    public static func gnome(locked: Bool, kiosk: Bool) -> String {
        let key =
            "GNOME's auto-rotation (org.gnome.settings-daemon.peripherals.touchscreen orientation-lock was "
            + (locked ? "on" : "off") + ")"
        if kiosk { return key + ": Upright keeps it locked while it plays (kiosk = true) and puts it back after" }
        return key + (locked ? "" : ": GNOME turns this screen by its own sensor reading too (kiosk = false)")
    }

    /// The running ones, each as "NAME (pid N): what it does".
    public static func running(procfs: String = "/proc") -> [String] {
        let pids = ((try? FileManager.default.contentsOfDirectory(atPath: procfs)) ?? []).filter { Int($0) != nil }
        var found: [String] = []
        for pid in pids.sorted(by: { Int($0)! < Int($1)! }) {
            guard let comm = try? String(contentsOfFile: "\(procfs)/\(pid)/comm", encoding: .utf8) else { continue }
            let name = comm.trimmingCharacters(in: .whitespacesAndNewlines)
            if let what = known[name] { found.append("\(name) (pid \(pid)): \(what)") }
        }
        return found
    }
}
