import Files
import Foundation
public import OrientationCore

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

        public init(path: String, line: Int?, message: String) {
            self.path = path
            self.line = line
            self.message = message
        }

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
            if let problem = readProblem(path) {
                throw Failure(path: path, line: nil, message: "cannot read the trace: \(problem)")
            }
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(path: path, line: nil, message: "cannot read the trace: \(error.localizedDescription)")
        }
        return try parse(data, path: path)
    }

    /// The trace as CSV text with the header `t,x,y,z`.
    public var csv: String {
        var text = "t,x,y,z\n"
        text.reserveCapacity(samples.count * 36)
        for s in samples {
            text += "\(s.t.fixed(4)),\(s.x.fixed(4)),\(s.y.fixed(4)),\(s.z.fixed(4))\n"
        }
        return text
    }

    /// Writes the trace as CSV, replacing the file atomically.
    public func write(to path: String) throws {
        try csv.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Parses trace text; `path` is used in error messages only.
    public static func parse(_ text: String, path: String = "<trace>") throws(Failure) -> Trace {
        try parse(Data(text.utf8), path: path)
    }

    static func parse(_ data: Data, path: String) throws(Failure) -> Trace {
        // Byte-level parsing: a 10-minute trace at 50 Hz is 30 000 lines, and replay should take
        // milliseconds, so no String is built per field.
        var samples: [GravitySample] = []
        samples.reserveCapacity(data.count / 28)
        var columns: (t: Int, x: Int, y: Int, z: Int)?
        var width = 0
        var lineNumber = 0
        var previousT = -Double.infinity
        var fields: [Range<Int>] = []
        var values = [Double](repeating: 0, count: 4)
        return try Array(data).withUnsafeBufferPointer { (bytes: UnsafeBufferPointer<UInt8>) throws(Failure) -> Trace in
            var lineStart = 0
            while lineStart < bytes.count {
                var lineEnd = lineStart
                while lineEnd < bytes.count, bytes[lineEnd] != 0x0A { lineEnd += 1 }
                let next = lineEnd + 1
                lineNumber += 1
                var end = lineEnd
                if end > lineStart, bytes[end - 1] == 0x0D { end -= 1 }
                let blank = split(bytes, lineStart..<end, into: &fields)
                lineStart = next
                if blank { continue }
                guard let cols = columns else {
                    let names = fields.map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) }
                    columns = try header(names, path: path, line: lineNumber)
                    width = fields.count
                    continue
                }
                guard fields.count == width else {
                    throw Failure(
                        path: path, line: lineNumber,
                        message: "expected \(width) fields as in the header, found \(fields.count)")
                }
                for (k, index) in [cols.t, cols.x, cols.y, cols.z].enumerated() {
                    values[k] = try value(bytes, fields[index], column: columnNames[k], path: path, line: lineNumber)
                }
                let s = GravitySample(t: values[0], x: values[1], y: values[2], z: values[3])
                guard s.t > previousT else {
                    throw Failure(
                        path: path, line: lineNumber,
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
    }

    private static let columnNames = ["t", "x", "y", "z"]

    /// Splits the line at `range` into its comma-separated fields (trimmed); true when it is blank.
    private static func split(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, into fields: inout [Range<Int>])
        -> Bool
    {
        fields.removeAll(keepingCapacity: true)
        var fieldStart = range.lowerBound
        var blank = true
        for i in range.lowerBound...range.upperBound {
            if i == range.upperBound || bytes[i] == UInt8(ascii: ",") {
                fields.append(trim(bytes, fieldStart..<i))
                fieldStart = i + 1
            } else if bytes[i] != 0x20 && bytes[i] != 0x09 {
                blank = false
            }
        }
        return blank
    }

    /// The finite number in the field at `range`, or the error that names its line and column.
    private static func value(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, column name: String, path: String, line: Int
    ) throws(Failure) -> Double {
        let v = number(bytes, range)
        if let v, v.isFinite { return v }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        let message =
            v != nil
            ? "'\(text)' in column \(name) is not finite"
            : text.isEmpty ? "empty value in column \(name)" : "'\(text)' in column \(name) is not a number"
        throw Failure(path: path, line: line, message: message)
    }

    private static func trim(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int> {
        var lo = range.lowerBound, hi = range.upperBound
        while lo < hi, bytes[lo] == 0x20 || bytes[lo] == 0x09 { lo += 1 }
        while hi > lo, bytes[hi - 1] == 0x20 || bytes[hi - 1] == 0x09 { hi -= 1 }
        return lo..<hi
    }

    /// The whole field as a number (`strtod` on a terminated copy), or `nil` when it is not one.
    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Double? {
        guard !range.isEmpty, range.count < 64 else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: range.count + 1) { buffer -> Double? in
            for (i, b) in bytes[range].enumerated() { buffer[i] = CChar(bitPattern: b) }
            buffer[range.count] = 0
            var endPointer: UnsafeMutablePointer<CChar>?
            let v = strtod(buffer.baseAddress!, &endPointer)
            return endPointer == buffer.baseAddress! + range.count ? v : nil
        }
    }

    private static func header(_ fields: [String], path: String, line: Int) throws(Failure)
        -> (t: Int, x: Int, y: Int, z: Int)
    {
        var index: [String: Int] = [:]
        for (i, f) in fields.enumerated() { index[f.lowercased()] = index[f.lowercased()] ?? i }
        let missing = ["t", "x", "y", "z"].filter { index[$0] == nil }
        guard missing.isEmpty else {
            throw Failure(
                path: path, line: line,
                message: "bad header '\(fields.joined(separator: ","))': expected 't,x,y,z' "
                    + "(missing \(missing.joined(separator: ", ")))")
        }
        return (index["t"]!, index["x"]!, index["y"]!, index["z"]!)
    }
}
