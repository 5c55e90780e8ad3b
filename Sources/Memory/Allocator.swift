import CMalloc

/// glibc's allocator, held to what the process uses over weeks of uptime.
public enum Allocator {
    /// Two arenas, before any thread starts: glibc gives each thread that allocates an arena of its
    /// own (up to 8 per core) and keeps what is freed there; the in-process mpv (`vo = "libmpv"`)
    /// brings a dozen threads with every new core.
    public static func limitArenas() { mallopt(M_ARENA_MAX, 2) }

    /// Gives the freed pages in every arena back to the system. glibc returns only the top of a
    /// heap by itself: what a burst of clients or a long control line freed below a block still in
    /// use stayed resident, and the fault soak's resident memory grew by it.
    public static func giveBackFreed() { _ = malloc_trim(0) }

    /// Gives the freed pages back every minute of `clock`, until the task is cancelled.
    public static func giveBackFreedEveryMinute<C: Clock>(on clock: C) async where C.Duration == Duration {
        while !Task.isCancelled {
            try? await clock.sleep(for: .seconds(60), tolerance: .seconds(5))
            giveBackFreed()
        }
    }

    /// The bytes the program holds from the allocator (in every arena).
    public static var inUseBytes: Int { Int(mallinfo2().uordblks) }
}
