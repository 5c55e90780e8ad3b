// glibc's (2.34 and later) spawn action that closes every descriptor from one on, declared only
// for _GNU_SOURCE, which Swift's Glibc module is not built with: part of libc, always linked.
#include <spawn.h>
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
