import Foundation

/// The conversation between a player and its mpv in a process of its own (`upright-mpv`): one JSON
/// object a line, each way. The player sends ``Start`` once, then ``Request``s; mpv's process
/// answers the start, each request by its id, and sends mpv's events as they come.
enum MPVWire {
    /// mpv's process finds its end of the socket pair here (its standard output is mpv's terminal).
    static let descriptor: Int32 = 3

    /// The first line: the options mpv starts with, in order, and the player's environment now
    /// (the process may have been started before the display was found: ``MPVRemote/startAhead()``).
    struct Start: Codable {
        var options: [[String]]
        var environment: [String: String]
    }

    /// One client call.
    enum Call: Codable {
        case get(String, MPVValue.Kind)
        case set(String, MPVValue)
        case string(String)
        case observe(String, MPVValue.Kind)
        case command([String])
        case screenshot(String)
        /// No answer: mpv's process ends.
        case quit
    }

    struct Request: Codable {
        var id: Int
        var call: Call
    }

    /// A call's outcome.
    enum Outcome: Codable {
        case done
        case value(MPVValue)
        case string(String?)
        case frame(width: Int, height: Int, stride: Int, pixels: Data)
        case failed(MPVError)
    }

    enum Message: Codable {
        /// The answer to ``Start``: `nil` when mpv started.
        case started(MPVError?)
        case reply(id: Int, Outcome)
        case event(MPVEvent)
    }

    /// One value as its line (JSON has no raw newline inside).
    static func line<T: Encodable>(_ value: T) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        // Every value here encodes: strings, numbers (any double, as above) and data only.
        // swift-format-ignore: NeverUseForceTry
        return Array((try! encoder.encode(value))) + [0x0A]
    }

    /// A line read back.
    static func decode<T: Decodable>(_ type: T.Type, from line: [UInt8]) -> T? {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try? decoder.decode(type, from: Data(line))
    }
}

/// Reads newline-ended lines from a descriptor, blocking.
struct LineReader {
    /// The longest line taken: a frame of 8192 × 8192 pixels, 4 bytes each, in base64, with room
    /// to spare. A longer one is a broken stream (a descriptor that is no longer the other
    /// process's), which ends, rather than a buffer that grows until the system kills the process.
    static let longest = 384 << 20

    let fd: Int32
    let longest: Int
    private var buffer: [UInt8] = []
    private var start = 0
    /// Where the search for the next newline goes on (what is before it has none).
    private var searched = 0

    init(fd: Int32, longest: Int = LineReader.longest) { (self.fd, self.longest) = (fd, longest) }

    /// The next line without its newline; `nil` at the end of the stream, on an error, or past
    /// ``longest``.
    mutating func next() -> [UInt8]? {
        while true {
            if let end = buffer[max(start, searched)...].firstIndex(of: 0x0A) {
                let line = Array(buffer[start..<end])
                start = end + 1
                searched = start
                if start > 1 << 16 {
                    buffer.removeFirst(start)
                    start = 0
                    searched = 0
                }
                return line
            }
            searched = buffer.count
            guard buffer.count - start <= longest else { return nil }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return nil }
            buffer += chunk[0..<n]
        }
    }
}
