import CLandlock
import Glibc

/// Landlock's file-system rules for a ``ConfinementPolicy``, made for the newest ABI the kernel
/// offers (Debian 12's Linux 6.1 offers 2; each later ABI handles more rights).
enum Landlock {
    // The rights by bit (linux/landlock.h), named here: an older header lacks the newer ones.
    static let execute: UInt64 = 1 << 0
    static let writeFile: UInt64 = 1 << 1
    static let readFile: UInt64 = 1 << 2
    static let readDirectory: UInt64 = 1 << 3
    static let removeDirectory: UInt64 = 1 << 4
    static let removeFile: UInt64 = 1 << 5
    static let makeCharacterDevice: UInt64 = 1 << 6
    static let makeDirectory: UInt64 = 1 << 7
    static let makeRegular: UInt64 = 1 << 8
    static let makeSocket: UInt64 = 1 << 9
    static let makeFIFO: UInt64 = 1 << 10
    static let makeBlockDevice: UInt64 = 1 << 11
    static let makeSymlink: UInt64 = 1 << 12
    /// ABI 2: link or rename across directories.
    static let refer: UInt64 = 1 << 13
    /// ABI 3: truncate.
    static let truncate: UInt64 = 1 << 14
    /// ABI 5: ioctl on a device.
    static let ioctlDevice: UInt64 = 1 << 15
    /// ABI 6: signals only to processes in the same domain (mpv cannot signal the player).
    static let scopeSignal: UInt64 = 1 << 1

    /// Every right the kernel's `abi` handles: what it does not name stays refused.
    static func handled(abi: Int) -> UInt64 {
        var rights: UInt64 = (1 << 13) - 1
        if abi >= 2 { rights |= refer }
        if abi >= 3 { rights |= truncate }
        if abi >= 5 { rights |= ioctlDevice }
        return rights
    }

    static let read = execute | readFile | readDirectory
    static let write =
        read | writeFile | removeDirectory | removeFile | makeDirectory | makeRegular | makeSocket | makeFIFO
        | makeSymlink | refer | truncate
    static let device = readFile | writeFile | readDirectory | truncate | ioctlDevice

    /// Confines the calling thread to `policy`; the ABI used. A path that does not exist is left
    /// out (a machine without sound has no `/dev/snd`).
    static func restrict(_ policy: ConfinementPolicy) -> Result<Int, ConfinementFailure> {
        let abi = Int(upright_landlock_abi())
        guard abi >= 1 else {
            return .failure(
                errno == ENOSYS || errno == EOPNOTSUPP
                    ? ConfinementFailure("not offered by this kernel (\(String(cString: strerror(errno))))")
                    : ConfinementFailure("landlock_create_ruleset", errno: errno))
        }
        let handled = handled(abi: abi)
        let ruleset = upright_landlock_ruleset(handled, abi >= 6 ? scopeSignal : 0, Int32(abi))
        guard ruleset >= 0 else { return .failure(ConfinementFailure("landlock_create_ruleset", errno: errno)) }
        defer { close(ruleset) }
        let grants =
            policy.readable.map { ($0, read) } + policy.writable.map { ($0, write) }
            + policy.devices.map { ($0, device) }
        for (path, rights) in grants {
            let fd = open(path, upright_o_path | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var info = stat()
            fstat(fd, &info)
            // A file takes only the rights of files (a directory's would be refused).
            let isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
            let fileRights = writeFile | readFile | execute | truncate | ioctlDevice
            let allowed = rights & handled & (isDirectory ? ~0 : fileRights)
            guard upright_landlock_allow(ruleset, fd, allowed) == 0 else {
                return .failure(ConfinementFailure("landlock_add_rule for \(path)", errno: errno))
            }
        }
        guard upright_landlock_restrict(ruleset) == 0 else {
            return .failure(ConfinementFailure("landlock_restrict_self", errno: errno))
        }
        return .success(abi)
    }
}
