// Preloaded before libfaketime (0.9.10) in the end-to-end schedule test.
//
// libfaketime rewrites the absolute deadlines given to timerfd_settime by the wall clock's fake
// offset, whatever the timer's clock. libdispatch (Swift's timers) arms CLOCK_MONOTONIC and
// CLOCK_BOOTTIME timerfds with absolute deadlines: with FAKETIME_DONT_FAKE_MONOTONIC=1 those
// deadlines are real, the rewrite makes them invalid (EINVAL) or far off, and every timer of the
// process stalls. These two calls go straight to the kernel, so only the wall clock is faked.
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

int timerfd_settime(int fd, int flags, const struct itimerspec *new_value, struct itimerspec *old_value) {
    return (int)syscall(SYS_timerfd_settime, fd, flags, new_value, old_value);
}

int timerfd_gettime(int fd, struct itimerspec *curr_value) {
    return (int)syscall(SYS_timerfd_gettime, fd, curr_value);
}
