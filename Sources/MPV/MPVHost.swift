import CMPV
import Confinement
import Foundation
import Memory
import Synchronization
import UnixSocket

/// The other end of ``MPVRemote``: `upright` started as `upright-mpv` (``argument``). It reads the start and the calls on
/// descriptor 3 (``MPVWire/descriptor``), answers them and sends mpv's events there, and ends with
/// `_exit` (never tearing libmpv down: its process's end frees everything) when told to quit, when
/// mpv has shut down, or when its input ends (its parent has closed it, or died).
public enum MPVHost {
    /// The process's name (its `argv[0]` and its name in `ps`, `top` and `pgrep`).
    public static let name = "upright-mpv"
    /// The first argument that makes `upright` this process.
    public static let argument = "--mpv-host"

    /// Said by a program that serves this host itself when started with ``argument`` (`upright`):
    /// its mpv processes are then the very file it runs from (`/proc/self/exe`: the same version
    /// even after a newer one was installed over it), whose pages in memory the two share.
    public static func servedByThisProgram() { byThisProgram.store(true, ordering: .relaxed) }
    static let byThisProgram = Atomic<Bool>(false)

    /// mpv started as `start` asks, in this process confined first (before mpv reads a byte of
    /// any media); the start's answer sent. Ends the process when mpv cannot start.
    static func started(_ start: MPVWire.Start, output: Output) -> MPVHandle {
        adopt(start.environment)
        let confined = start.confinement.map { Confinement.apply($0).description }
        let mpv: MPVHandle
        do {
            mpv = try MPVHandle(options: start.options, keepsCore: true)
        } catch {
            output.send(.started(error, confined: confined))
            _exit(1)
        }
        for call in start.calls {
            if case .failed(let error) = answer(call, on: mpv) {
                output.send(.started(error, confined: confined))
                _exit(1)
            }
        }
        output.send(.started(nil, confined: confined))
        return mpv
    }

    public static func serve() -> Never {
        try? name.write(toFile: "/proc/self/comm", atomically: false, encoding: .utf8)
        signal(SIGPIPE, SIG_IGN)
        // A terminal's Ctrl-C, its hang-up and the service manager's stop are for the parent, which
        // ends this process by telling it to quit or by closing its input (at its own end, whatever
        // it is).
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        signal(SIGHUP, SIG_IGN)
        guard fcntl(MPVWire.descriptor, F_GETFD) != -1 else {
            FileHandle.standardError.write(Data("upright-mpv: started by Upright's player only\n".utf8))
            _exit(2)
        }
        // Loaded while the player still reads its configuration and finds its display.
        _ = upright_mpv_load()
        var input = FrameReader(fd: MPVWire.descriptor)
        guard let first = input.next() else { _exit(0) }  // started ahead, and not needed
        guard let start = MPVWire.Start(first) else {
            FileHandle.standardError.write(Data("upright-mpv: started by Upright's player only\n".utf8))
            _exit(2)
        }
        let output = Output()
        let mpv = started(start, output: output)
        Task.detached {
            var trimmed = ContinuousClock.now
            for await event in mpv.events {
                output.send(.event(event))
                if case .shutdown = event { _exit(0) }
                // A new picture on screen: what decoding the last item left freed in the heap's
                // middle goes back (glibc keeps it; 10 MB of a 35 MB heap after a few pictures).
                if case .playbackRestart = event, ContinuousClock.now - trimmed >= .seconds(1) {
                    Allocator.giveBackFreed()
                    trimmed = .now
                }
            }
            _exit(0)
        }
        Task.detached { await Allocator.giveBackFreedEveryMinute(on: ContinuousClock()) }
        while let line = input.next() {
            guard let request = MPVWire.Request(line) else { continue }
            if case .quit = request.call { break }
            output.send(.reply(id: request.id, answer(request.call, on: mpv)))
        }
        _exit(0)
    }

    /// The player's environment as it is now (its display's variables may have been set after
    /// this process started); this process's own backtrace setting is kept.
    static func adopt(_ environment: [String: String]) {
        for name in ProcessInfo.processInfo.environment.keys where environment[name] == nil && name != "SWIFT_BACKTRACE"
        {
            unsetenv(name)
        }
        for (name, value) in environment where name != "SWIFT_BACKTRACE" { setenv(name, value, 1) }
    }

    /// Carries out one call on the local handle.
    static func answer(_ call: MPVWire.Call, on mpv: MPVHandle) -> MPVWire.Outcome {
        do throws(MPVError) {
            switch call {
            case .get(let name, let kind): return .value(try mpv.get(name, as: kind))
            case .set(let name, let value): try mpv.set(name, value)
            case .string(let name): return .string(mpv.string(name))
            case .observe(let name, let kind): try mpv.observe(name, as: kind)
            case .command(let words): try mpv.command(words)
            case .screenshot(let mode):
                let f = try mpv.screenshot(mode)
                return .frame(width: f.width, height: f.height, stride: f.stride, pixels: f.pixels)
            case .quit: mpv.quit()
            case .probeLength(let path, let timeout):
                return try MPVHandle.probeLengthHere(path, timeout: timeout).map { .value(.double($0)) } ?? .done
            case .zone(let zone): try mpv.draw(zone)
            }
            return .done
        } catch {
            return .failed(error)
        }
    }

    /// Whole lines to the socket, from the request loop and the event task alike.
    final class Output: Sendable {
        private let lock = Mutex(())
        func send(_ message: MPVWire.Message) {
            let frame = message.frame
            let sent = lock.withLock { _ in UnixSocket.sendAll(MPVWire.descriptor, frame) }
            if !sent { _exit(0) }  // the parent is gone
        }
    }
}
