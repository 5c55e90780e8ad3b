public import OrientationCore
import Foundation

/// An accelerometer trace file (CSV with the header `t,x,y,z`: seconds and m/s² in the device frame).
public struct Trace: Sendable {
    /// The samples, in file order (time strictly increasing).
    public var samples: [GravitySample]

    public init(samples: [GravitySample]) { self.samples = samples }

    /// A problem with a trace file, naming the file and, where it applies, the line.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var path: String
        /// 1-based line number, or `nil` for a problem with the file as a whole.
        public var line: Int?
        public var message: String

        public var description: String {
            if let line { return "\(path):\(line): error: \(message)" }
            return "\(path): error: \(message)"
        }
    }

    /// Reads and checks a trace file.
    ///
    /// - Throws: ``Failure`` for a missing or unreadable file, a bad header, a row with the wrong
    ///   number of fields, a value that is not a finite number, or time that does not increase.
    public static func load(path: String) throws(Failure) -> Trace {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let reason = (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
            let exists = FileManager.default.fileExists(atPath: path)
            throw Failure(path: path, line: nil, message: exists ? "cannot read the trace: \(reason)" : "no such file")
        }
        return try parse(data, path: path)
    }

    /// Parses trace text; `path` is used in error messages only.
    public static func parse(_ text: String, path: String = "<trace>") throws(Failure) -> Trace {
        try parse(Data(text.utf8), path: path)
    }

    static func parse(_ data: Data, path: String) throws(Failure) -> Trace {
        var samples: [GravitySample] = []
        samples.reserveCapacity(data.count / 28)
        var columns: (t: Int, x: Int, y: Int, z: Int)?
        var width = 0
        var lineNumber = 0
        var previousT = -Double.infinity
        var fields: [Substring] = []
        let text = String(decoding: data, as: UTF8.self)
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = rawLine.last == "\r" ? rawLine.dropLast() : rawLine
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            fields.removeAll(keepingCapacity: true)
            for f in line.split(separator: ",", omittingEmptySubsequences: false) {
                fields.append(f.trimmingCharacters(in: .whitespaces)[...])
            }
            guard let cols = columns else {
                columns = try header(fields, path: path, line: lineNumber)
                width = fields.count
                continue
            }
            guard fields.count == width else {
                throw Failure(path: path, line: lineNumber,
                              message: "expected \(width) fields as in the header, found \(fields.count)")
            }
            func value(_ index: Int, _ name: String) throws(Failure) -> Double {
                let field = fields[index]
                guard let v = Double(field) else {
                    throw Failure(path: path, line: lineNumber,
                                  message: field.isEmpty ? "empty value in column \(name)"
                                      : "'\(field)' in column \(name) is not a number")
                }
                guard v.isFinite else {
                    throw Failure(path: path, line: lineNumber, message: "'\(field)' in column \(name) is not finite")
                }
                return v
            }
            let s = GravitySample(t: try value(cols.t, "t"), x: try value(cols.x, "x"),
                                  y: try value(cols.y, "y"), z: try value(cols.z, "z"))
            guard s.t > previousT else {
                throw Failure(path: path, line: lineNumber,
                              message: "time goes backwards or stands still: \(s.t) after \(previousT)")
            }
            previousT = s.t
            samples.append(s)
        }
        guard columns != nil else {
            throw Failure(path: path, line: nil, message: "the file is empty; expected the header 't,x,y,z'")
        }
        return Trace(samples: samples)
    }

    private static func header(_ fields: [Substring], path: String, line: Int) throws(Failure)
        -> (t: Int, x: Int, y: Int, z: Int)
    {
        var index: [String: Int] = [:]
        for (i, f) in fields.enumerated() { index[f.lowercased()] = index[f.lowercased()] ?? i }
        let missing = ["t", "x", "y", "z"].filter { index[$0] == nil }
        guard missing.isEmpty else {
            throw Failure(path: path, line: line,
                          message: "bad header '\(fields.joined(separator: ","))': expected 't,x,y,z' "
                              + "(missing \(missing.joined(separator: ", ")))")
        }
        return (index["t"]!, index["x"]!, index["y"]!, index["z"]!)
    }
}
