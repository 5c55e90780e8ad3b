// Landlock, the kernel's unprivileged file-system sandbox (Linux 5.13 and later): three system
// calls with no library of their own in Debian, wrapped here, and no_new_privs (prctl).
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdint.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

/// The Landlock ABI the kernel offers (1 or more), or -1 with errno set (ENOSYS: not built in;
/// EOPNOTSUPP: not enabled at boot).
static inline int upright_landlock_abi(void) {
    return (int)syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
}

/// A ruleset handling `fs` file-system rights and `scoped` scopes (0 below ABI 6); its descriptor,
/// or -1. `scoped` needs the structure's third field, which older kernels refuse by its size.
static inline int upright_landlock_ruleset(uint64_t fs, uint64_t scoped, int abi) {
    struct {
        uint64_t handled_access_fs;
        uint64_t handled_access_net;
        uint64_t scoped;
    } attr = {fs, 0, scoped};
    size_t size = abi >= 6 ? sizeof(attr) : abi >= 4 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
    return (int)syscall(__NR_landlock_create_ruleset, &attr, size, 0);
}

/// Grants `access` beneath the directory (or on the file) open as `parent` (O_PATH); 0 or -1.
static inline int upright_landlock_allow(int ruleset, int parent, uint64_t access) {
    struct landlock_path_beneath_attr rule = {.allowed_access = access, .parent_fd = parent};
    return (int)syscall(__NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
}

/// Confines the calling thread (and what it starts later) to the ruleset; 0 or -1.
static inline int upright_landlock_restrict(int ruleset) {
    return (int)syscall(__NR_landlock_restrict_self, ruleset, 0);
}

/// no_new_privs: neither this process nor what it runs may gain privileges (set-user-ID files,
/// file capabilities); needed to load a seccomp filter or Landlock without CAP_SYS_ADMIN.
static inline int upright_no_new_privs(void) { return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); }

/// O_PATH (a descriptor that only names a file), which glibc hides behind _GNU_SOURCE.
static const int upright_o_path = 010000000;
