import Dispatch
import Foundation

/// The one way Upright moves blocking work off Swift concurrency's cooperative pool: a C call that
/// waits (libiio, a socket), a helper program, a burst of sensor reads. The pool has as many
/// threads as cores; a call that blocks one of them stalls every task waiting for a turn.
public enum Blocking {
    /// Runs `body` on a thread outside the cooperative pool and returns its result.
    public static func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { c in
            DispatchQueue.global(qos: .userInitiated).async {
                do throws(E) { c.resume(returning: .success(try body())) } catch {
                    c.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Starts a long-running loop (a sensor poller, an event pump) on a thread of its own, named
    /// for `top` and debuggers.
    public static func thread(named name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    }
}
