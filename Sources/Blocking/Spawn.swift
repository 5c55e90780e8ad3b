import CSpawn
public import Glibc

/// Why a program could not be started: `posix_spawn`'s error.
public struct SpawnFailure: Error, Sendable {
    public let code: Int32
    public var reason: String { String(cString: strerror(code)) }
}

/// Starts `arguments[0]` (`path`, or a name looked up in `PATH` when `search`) with `environment`,
/// every signal at its default and none blocked, whatever the starting thread blocks (a thread of
/// Swift concurrency blocks some, a relay waiting in `sigwait` blocks the signals it passes on).
/// The child gets standard input, output and error, `passing` as descriptor 3 when given, and no
/// other descriptor of this process: a socket made without close-on-exec (libmosquitto's, NIO's)
/// would live on in it, so that a broker would not see this process's connection end when it
/// dies, and a confined child could use this process's listeners. Returns the child's pid.
public func spawnProgram(
    _ path: String, arguments: [String], environment: [String: String], passing: Int32? = nil, search: Bool = false
) throws(SpawnFailure) -> Glibc.pid_t {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t(), all = sigset_t()
    sigemptyset(&none)
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let passing { posix_spawn_file_actions_adddup2(&actions, passing, 3) }
    posix_spawn_file_actions_addclosefrom_np(&actions, passing == nil ? 3 : 4)
    let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    let pairs: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { pairs.forEach { free($0) } }
    var pid: pid_t = 0
    let status =
        search
        ? posix_spawnp(&pid, path, &actions, &attributes, argv, pairs)
        : posix_spawn(&pid, path, &actions, &attributes, argv, pairs)
    guard status == 0 else { throw SpawnFailure(code: status) }
    return pid
}
