// The module map needs one header to name: libudev's own, and glibc's makedev (a macro, which
// Swift cannot call) as a function.
#include <libudev.h>
#include <sys/sysmacros.h>

static inline dev_t cudev_makedev(unsigned int major, unsigned int minor) { return makedev(major, minor); }
