import CSeccomp
import Glibc

/// The seccomp filter of a process that parses untrusted media: every system call is allowed but
/// those that start programs or processes, watch or change other processes, reach the kernel's
/// administration, or inject input into a terminal; those fail with `EPERM` (`clone3` with
/// `ENOSYS`, so that the C library makes its threads with `clone`, whose flags the filter reads).
/// Loaded by libseccomp, synchronised to every thread of the process.
enum SystemCallFilter {
    /// Refused outright.
    static let refused = [
        // Other programs and processes (a thread is a `clone` with CLONE_THREAD, allowed below).
        "execve", "execveat", "fork", "vfork",
        // Other processes' memory and descriptors.
        "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "pidfd_send_signal", "tkill",
        // Mounts and namespaces.
        "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "fsopen", "fsmount", "fsconfig",
        "fspick", "move_mount", "open_tree", "mount_setattr",
        // The kernel's administration and its attack surface.
        "bpf", "perf_event_open", "userfaultfd", "kexec_load", "kexec_file_load", "init_module",
        "finit_module", "delete_module", "reboot", "swapon", "swapoff", "acct", "quotactl", "syslog", "iopl",
        "ioperm", "keyctl", "add_key", "request_key", "open_by_handle_at", "name_to_handle_at",
        "settimeofday", "clock_settime", "personality",
    ]

    /// Address families a player uses: local sockets (Wayland, X11, PipeWire) and the Internet
    /// (streams); a socket of any other (netlink, packet, Bluetooth, …) is refused.
    static let families: Set<UInt64> = [UInt64(AF_UNIX), UInt64(AF_INET), UInt64(AF_INET6)]

    static func load() -> Result<Void, ConfinementFailure> {
        guard let filter = seccomp_init(SCMP_ACT_ALLOW) else {
            return .failure(ConfinementFailure("seccomp_init failed"))
        }
        defer { seccomp_release(filter) }
        var rc = seccomp_attr_set(filter, SCMP_FLTATR_CTL_TSYNC, 1)
        guard rc == 0 else { return .failure(ConfinementFailure("seccomp_attr_set(TSYNC)", errno: rc)) }
        let eperm = errnoAction(EPERM)
        func add(_ name: String, _ action: UInt32 = eperm, _ comparisons: [scmp_arg_cmp] = []) -> Int32 {
            let number = seccomp_syscall_resolve_name(name)
            guard number != __NR_SCMP_ERROR else { return 0 }  // not a call of this architecture
            return comparisons.withUnsafeBufferPointer {
                seccomp_rule_add_array(filter, action, number, UInt32($0.count), $0.baseAddress)
            }
        }
        func argument(_ n: UInt32, _ op: scmp_compare, _ a: UInt64, _ b: UInt64 = 0) -> scmp_arg_cmp {
            scmp_arg_cmp(arg: n, op: op, datum_a: a, datum_b: b)
        }
        let me = UInt64(getpid())
        var rules: [(String, UInt32, [scmp_arg_cmp])] = refused.map { ($0, eperm, []) }
        rules += [
            ("clone3", errnoAction(ENOSYS), []),
            // A new process (no CLONE_THREAD); the flags are the first argument on x86-64, arm64 and arm.
            ("clone", eperm, [argument(0, SCMP_CMP_MASKED_EQ, UInt64(upright_clone_thread), 0)]),
            // Signals to itself only (Landlock's scope does the same from ABI 6).
            ("kill", eperm, [argument(0, SCMP_CMP_NE, me)]),
            ("tgkill", eperm, [argument(0, SCMP_CMP_NE, me)]),
            ("rt_sigqueueinfo", eperm, [argument(0, SCMP_CMP_NE, me)]),
            ("rt_tgsigqueueinfo", eperm, [argument(0, SCMP_CMP_NE, me)]),
            // Input pushed into a terminal the process inherited (a shell's).
            ("ioctl", eperm, [argument(1, SCMP_CMP_MASKED_EQ, 0xffff_ffff, UInt64(TIOCSTI))]),
            ("ioctl", eperm, [argument(1, SCMP_CMP_MASKED_EQ, 0xffff_ffff, UInt64(TIOCLINUX))]),
            // Sockets of other families: those below AF_INET6 one by one, and every one above.
            ("socket", eperm, [argument(0, SCMP_CMP_GT, UInt64(AF_INET6))]),
        ]
        for family in 0..<UInt64(AF_INET6) where !families.contains(family) {
            rules.append(("socket", eperm, [argument(0, SCMP_CMP_EQ, family)]))
        }
        for (name, action, comparisons) in rules {
            rc = add(name, action, comparisons)
            guard rc == 0 else { return .failure(ConfinementFailure("seccomp_rule_add(\(name))", errno: rc)) }
        }
        rc = seccomp_load(filter)
        guard rc == 0 else { return .failure(ConfinementFailure("seccomp_load", errno: rc)) }
        return .success(())
    }

    /// libseccomp's `SCMP_ACT_ERRNO(code)`, a macro Swift cannot call.
    static func errnoAction(_ code: Int32) -> UInt32 { 0x0005_0000 | (UInt32(code) & 0xffff) }
}
