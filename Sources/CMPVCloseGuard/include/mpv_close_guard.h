// libmpv 0.35 (Debian bookworm) closes its Wayland display's socket itself, then calls
// wl_display_disconnect, which closes it again (mpv commit 1b4627f6 removed the extra closes in
// 0.37). Between the two, another thread of the process may have been given the same descriptor
// number — a control-socket client, an event loop's descriptor, a pipe to a helper — and the
// second close takes it from under its owner.
//
// This module defines `close` for the process: libmpv's own close of a socket is held back until
// libwayland-client closes that descriptor, which it does once, in wl_display_disconnect. Every
// other close goes straight to the kernel.
#pragma once

#include <stdbool.h>

/// Closes by libmpv held back so far (one per Wayland display closed, two after a display error).
unsigned long upright_mpv_close_guard_held(void);

/// Finds libmpv's and libwayland-client's code again: called once libmpv has been loaded (it is
/// loaded when the first core is made, after the process's first close).
void upright_mpv_close_guard_find_libraries(void);

/// True when libmpv's calls to `close` reach this module's (the executable exports it).
bool upright_mpv_close_guard_installed(void);

