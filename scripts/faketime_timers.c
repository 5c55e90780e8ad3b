/*
 * Timers for a process whose clocks libfaketime runs at a rate (FAKETIME="+0 x1.001").
 *
 * libfaketime 0.9.10 fakes clock_gettime at the rate, but its timerfd_settime turns an absolute
 * deadline of any clock into one of the real-time clock: a monotonic timer then waits for a date
 * decades ahead, and a Swift program, whose Dispatch arms every timer that way, stops. Preloaded
 * before libfaketime, this file arms each timer in the kernel's own time instead: the time left
 * on the faked clock, divided by the rate, from the real clock's now. A benchmark's helper, built
 * by the benchmark that needs it:
 *
 *   cc -O2 -shared -fPIC -o faketime_timers.so scripts/faketime_timers.c
 *   LD_PRELOAD="faketime_timers.so libfaketime.so.1" FAKETIME="+0 x1.001" program
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

enum { tracked = 65536 };
static int clock_of[tracked]; /* the clock a timer descriptor counts, plus one; 0: not seen */

int timerfd_create(int clockid, int flags) {
    int fd = (int)syscall(SYS_timerfd_create, clockid, flags);
    if (fd >= 0 && fd < tracked) clock_of[fd] = clockid + 1;
    return fd;
}

/* The rate in FAKETIME ("+0 x1.001"), 1 without one. */
static double rate(void) {
    const char *spec = getenv("FAKETIME");
    const char *x = spec ? strchr(spec, 'x') : NULL;
    double r = x ? atof(x + 1) : 1.0;
    return r > 0 ? r : 1.0;
}

static double seconds(struct timespec t) { return (double)t.tv_sec + (double)t.tv_nsec / 1e9; }

static struct timespec timespec_of(double s) {
    time_t whole = (time_t)s;
    struct timespec t = {whole, (long)((s - (double)whole) * 1e9)};
    return t;
}

int timerfd_settime(int fd, int flags, const struct itimerspec *value, struct itimerspec *old) {
    struct itimerspec real = *value;
    double r = rate();
    int disarm = value->it_value.tv_sec == 0 && value->it_value.tv_nsec == 0;
    if (!disarm) {
        int absolute = flags & TFD_TIMER_ABSTIME;
        int clockid = fd >= 0 && fd < tracked && clock_of[fd] ? clock_of[fd] - 1 : CLOCK_MONOTONIC;
        struct timespec faked, now;
        clock_gettime(clockid, &faked);            /* libfaketime's answer */
        syscall(SYS_clock_gettime, clockid, &now); /* the kernel's */
        double left = (seconds(value->it_value) - (absolute ? seconds(faked) : 0)) / r;
        if (left < 1e-6) left = 1e-6; /* due now: a zero would disarm it */
        real.it_value = timespec_of((absolute ? seconds(now) : 0) + left);
    }
    real.it_interval = timespec_of(seconds(value->it_interval) / r);
    return (int)syscall(SYS_timerfd_settime, fd, flags, &real, old);
}
