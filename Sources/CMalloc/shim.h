// glibc's allocator controls (mallopt, malloc_trim): part of libc, which is always linked.
#include <malloc.h>
