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
