import CTimex
import Glibc

/// Whether the system clock is kept to true time, as the kernel knows it: chrony,
/// systemd-timesyncd and ntpd each clear the kernel's "unsynchronised" flag while they discipline
/// the clock, and keep its error estimates. The power plan's times go by this clock.
public struct ClockSync: Sendable, Hashable {
    /// A time service keeps the clock (the kernel's `STA_UNSYNC` flag is clear).
    public var synchronised: Bool
    /// The kernel's estimated and maximum error of the clock, in seconds (as the time service
    /// last set them; the maximum grows by 500 ppm while nothing sets it).
    public var estimatedError: Double
    public var maximumError: Double

    public init(synchronised: Bool, estimatedError: Double, maximumError: Double) {
        (self.synchronised, self.estimatedError, self.maximumError) = (synchronised, estimatedError, maximumError)
    }

    /// The state from `adjtimex`'s answer: its return value (`TIME_ERROR`: not synchronised), the
    /// status flags and the errors in microseconds.
    public init(state: Int32, status: Int32, estimatedMicroseconds: Int, maximumMicroseconds: Int) {
        synchronised = state != TIME_ERROR && status & STA_UNSYNC == 0
        estimatedError = Double(estimatedMicroseconds) / 1_000_000
        maximumError = Double(maximumMicroseconds) / 1_000_000
    }

    /// The kernel's state now (`adjtimex` with nothing to change); `nil` when it cannot be read.
    public static func now() -> ClockSync? {
        var t = timex()
        let state = adjtimex(&t)
        guard state >= 0 else { return nil }
        return ClockSync(
            state: state, status: t.status, estimatedMicroseconds: t.esterror, maximumMicroseconds: t.maxerror)
    }

    /// The time services whose run-time files are there under `root` (`/`): chrony
    /// (`/run/chrony/chronyd.pid`), systemd-timesyncd (`/run/systemd/timesync/`), ntpd
    /// (`/run/ntpd.pid`).
    public static func services(root: String = "/") -> [String] {
        let marks = [
            ("chrony", "run/chrony/chronyd.pid"), ("systemd-timesyncd", "run/systemd/timesync"),
            ("ntpd", "run/ntpd.pid"),
        ]
        let base = root.hasSuffix("/") ? root : root + "/"
        return marks.filter { access(base + $0.1, F_OK) == 0 }.map(\.0)
    }

    /// One line for `upright doctor`.
    public var summary: String {
        // Tenths of a millisecond below 10 ms, whole milliseconds above.
        func ms(_ s: Double) -> String {
            let tenths = (s * 10_000).rounded()
            return tenths < 100 ? "\(Int(tenths) / 10).\(Int(tenths) % 10) ms" : "\(Int((s * 1000).rounded())) ms"
        }
        guard synchronised else {
            return "not synchronised (no time service keeps it: chrony or systemd-timesyncd; the power plan's times go "
                + "by it)"
        }
        return "synchronised (estimated error \(ms(estimatedError)), at most \(ms(maximumError)))"
    }
}
