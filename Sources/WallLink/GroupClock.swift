import Glibc
public import Sync

/// This node's clocks, as a wall's group reads them.
public enum GroupClock {
    /// The system clock (`CLOCK_REALTIME`, Unix seconds) and the monotonic one (`CLOCK_MONOTONIC`).
    @Sendable public static func system() -> GroupNow {
        GroupNow(wall: seconds(CLOCK_REALTIME), mono: seconds(CLOCK_MONOTONIC))
    }

    private static func seconds(_ id: clockid_t) -> Double {
        var ts = timespec()
        clock_gettime(id, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
