// libseccomp: a process's system-call filter (seccomp mode 2), built as rules and loaded.
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sched.h>
#include <sys/socket.h>

/// CLONE_THREAD (a new thread, not a new process), which glibc hides behind _GNU_SOURCE.
static const unsigned long upright_clone_thread = 0x00010000UL;
