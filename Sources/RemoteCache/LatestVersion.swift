import AsyncHTTPClient
import NIOCore

/// The newest version a fleet publishes: an `http(s)` URL whose body's first line is it
/// (`0.13.0`). The answer is bounded (4 KB, 10 s) and checked where it enters: 1 to 64 of the
/// characters versions are written with (letters, digits, `.+~_-`).
public enum LatestVersion {
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(5))
        configuration.redirectConfiguration = .follow(max: 3, allowCycles: false)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// The version `url` names, or why it names none.
    public static func fetch(_ url: String, userAgent: String? = nil) async -> Result<String, VersionProblem> {
        var request = HTTPClientRequest(url: url)
        if let userAgent { request.headers.add(name: "User-Agent", value: userAgent) }
        do {
            let response = try await client.execute(request, deadline: .now() + .seconds(10))
            let body = try await response.body.collect(upTo: 4096)
            guard (200..<300).contains(response.status.code) else {
                return .failure(VersionProblem("the server answered \(response.status.code)"))
            }
            return version(String(buffer: body))
        } catch is NIOTooManyBytesError {
            return .failure(VersionProblem("the answer is longer than 4 KB: not a version"))
        } catch {
            return .failure(VersionProblem("\(error)"))
        }
    }

    /// The version a body's first line says, or why it says none.
    public static func version(_ body: String) -> Result<String, VersionProblem> {
        let line = body.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let v = line.trimmingCharacters(in: .whitespaces)
        let marks = Set(".+~_-".unicodeScalars)
        let allowed = v.unicodeScalars.allSatisfy { s in
            ("a"..."z").contains(s) || ("A"..."Z").contains(s) || ("0"..."9").contains(s) || marks.contains(s)
        }
        guard !v.isEmpty, v.count <= 64, allowed else {
            return .failure(VersionProblem("its first line is not a version: \(quoted(v.prefix(40)))"))
        }
        return .success(v)
    }

    /// `text` in double quotes, each control or format character (C0 and C1 controls, a bidi
    /// override) written as `\u{XX}`: a server's words go to the log and the status, never a
    /// terminal's escapes or a reversed line.
    static func quoted(_ text: Substring) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format: out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// Why no version came.
public struct VersionProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// When the newest version is asked again, and what the last answer said, as a value: every
/// `interval` after an answer; after a failure 5 minutes, doubling, never more than `interval`.
public struct UpdateWatch: Sendable, Hashable {
    public let interval: Double
    public private(set) var latest: String?
    public private(set) var problem: String?
    /// When it was last asked (the caller's clock, seconds).
    public private(set) var checkedAt: Double?
    public private(set) var nextAt = 0.0
    var failures = 0

    public init(interval: Double) { self.interval = interval }

    public func due(at now: Double) -> Bool { now >= nextAt }

    public mutating func answered(_ answer: Result<String, VersionProblem>, at now: Double) {
        checkedAt = now
        switch answer {
        case .success(let v):
            (latest, problem, failures) = (v, nil, 0)
            nextAt = now + interval
        case .failure(let why):
            problem = why.description
            failures += 1
            nextAt = now + min(interval, 300 * Double(1 << min(failures - 1, 20)))
        }
    }
}
