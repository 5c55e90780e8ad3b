public import Glibc

/// `posix_spawn` attributes that start a program with every signal at its default and none
/// blocked, whatever the starting thread blocks (a thread of Swift concurrency blocks some, a
/// relay waiting in `sigwait` blocks the signals it passes on). Valid inside `body` only.
public func withDefaultSignalsSpawnAttributes<R>(_ body: (inout posix_spawnattr_t) throws -> R) rethrows -> R {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t(), all = sigset_t()
    sigemptyset(&none)
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    return try body(&attributes)
}
