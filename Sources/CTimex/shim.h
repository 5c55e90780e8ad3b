// The kernel's clock discipline (adjtimex): part of libc, which is always linked.
#include <sys/timex.h>
