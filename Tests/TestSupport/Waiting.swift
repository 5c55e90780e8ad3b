public import Foundation

/// Reads `stream` until an element `match` accepts, giving up after `seconds` (a bound, so a broken
/// component fails its test instead of hanging it). Returns the elements seen, the match last, or
/// `nil` when the stream ended or the time ran out.
public func waitFor<Element: Sendable>(
    _ stream: AsyncStream<Element>, seconds: Double = 10, _ match: @escaping @Sendable (Element) -> Bool
) async -> [Element]? {
    await withTaskGroup(of: [Element]?.self) { group in
        group.addTask {
            var seen: [Element] = []
            for await e in stream {
                seen.append(e)
                if match(e) { return seen }
            }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// A pipe for a child process's output, read to its end by a thread of its own. (No dispatch
/// source: libdispatch has crashed in its event loop when a readability handler's descriptor was
/// closed, or lived on in a child, under it.)
public final class CollectedPipe: @unchecked Sendable {  // `data` only under `lock`
    public let pipe = Pipe()
    private let lock = NSLock()
    private var data = Data()

    public init() {
        let handle = pipe.fileHandleForReading
        Thread { [weak self] in
            while true {
                let d = handle.availableData
                if d.isEmpty { return }
                guard let self else { return }
                self.lock.withLock { self.data.append(d) }
            }
        }.start()
    }

    /// What was read so far.
    public var bytes: Data { lock.withLock { data } }
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}
