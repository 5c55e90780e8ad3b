import Testing

/// The suites that point libwayland at their compositor through the process's `WAYLAND_DISPLAY`
/// (mpv reads it when its video output starts): one at a time, so that no mpv draws into another
/// suite's compositor (which then stops under it: "mpv has shut down" in the middle of a turn).
@Suite("Screens through WAYLAND_DISPLAY", .serialized)
struct WaylandScreenTests {}
