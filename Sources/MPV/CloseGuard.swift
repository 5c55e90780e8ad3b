import CMPVCloseGuard

/// libmpv 0.35's Wayland output closes its display's socket itself before
/// `wl_display_disconnect` closes it again: the second close can take a descriptor another
/// thread was just given (a control client, an event loop's, a pipe). The process's `close`
/// (module `CMPVCloseGuard`) holds libmpv's close of a socket back until libwayland-client closes
/// it, once.
public enum MPVCloseGuard {
    /// libmpv's closes held back so far in this process.
    public static var held: UInt { UInt(upright_mpv_close_guard_held()) }
    /// Finds libmpv's code again, once it has been loaded.
    static func findLibraries() { upright_mpv_close_guard_find_libraries() }
    /// True when libmpv's `close` calls reach the guard.
    public static var installed: Bool { upright_mpv_close_guard_installed() }
}
