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
