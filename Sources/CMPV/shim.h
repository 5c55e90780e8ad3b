// The module map needs one header to name; libmpv's client and render APIs are all we import.
#include <mpv/client.h>
#include <mpv/render.h>
#include <mpv/render_gl.h>
