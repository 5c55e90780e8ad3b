import Foundation

/// A 3×3 mount matrix as systemd's hwdb (`ACCEL_MOUNT_MATRIX`) and the kernel's `mount_matrix`
/// attribute write it: `"a, b, c; d, e, f; g, h, i"`, row i giving axis i of `M · raw`.
///
/// `M · raw` is in iio-sensor-proxy's frame (upright reads y ≈ −g, right edge up x ≈ −g, face up
/// z ≈ +g); Upright's device frame is that turned by diag(−1, −1, +1). So a published matrix is used
/// unchanged: `gravity(raw)` applies it and then the turn.
public struct MountMatrix: Sendable, Hashable, CustomStringConvertible {
    public var rows: [[Double]]

    public static let identity = MountMatrix(rows: [[1, 0, 0], [0, 1, 0], [0, 0, 1]])

    public init(rows: [[Double]]) { self.rows = rows }

    /// Parses the hwdb / sysfs text. Rows are separated by `;`, values by `,` (spaces allowed).
    public init?(parsing text: String) {
        let rows = text.split(separator: ";").map { row in
            row.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        guard rows.count == 3, rows.allSatisfy({ $0.count == 3 && $0.allSatisfy { $0?.isFinite == true } }) else {
            return nil
        }
        self.rows = rows.map { $0.map { $0! } }
    }

    /// What is wrong with the matrix, in words; empty for a usable one. The hwdb holds a few
    /// malformed entries (an all-zero row, a repeated row), and iio-sensor-proxy refuses a zero row.
    public var problems: [String] {
        var out: [String] = []
        let names = ["first", "second", "third"]
        for (i, r) in rows.enumerated() where r.allSatisfy({ $0 == 0 }) {
            out.append("the \(names[i]) row is all zeros")
        }
        for i in 0..<3 {
            for j in (i + 1)..<3 where rows[i] == rows[j] && !rows[i].allSatisfy({ $0 == 0 }) {
                out.append("the \(names[i]) and \(names[j]) rows are the same")
            }
        }
        if out.isEmpty {
            // Roughly orthonormal: rows of length 1 (±10 %), at right angles (|cos| < 0.1).
            for (i, r) in rows.enumerated() {
                let n = (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]).squareRoot()
                if abs(n - 1) > 0.1 { out.append("the \(names[i]) row has length \(fmt3(n)), not 1") }
            }
            for i in 0..<3 {
                for j in (i + 1)..<3 {
                    let a = rows[i], b = rows[j]
                    let dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
                    if abs(dot) > 0.1 { out.append("the \(names[i]) and \(names[j]) rows are not at right angles") }
                }
            }
        }
        return out
    }

    /// `M · v`.
    public func apply(_ v: (Double, Double, Double)) -> (Double, Double, Double) {
        let r = rows
        return (
            r[0][0] * v.0 + r[0][1] * v.1 + r[0][2] * v.2,
            r[1][0] * v.0 + r[1][1] * v.1 + r[1][2] * v.2,
            r[2][0] * v.0 + r[2][1] * v.1 + r[2][2] * v.2
        )
    }

    /// A reading in m/s² on the chip's axes, in Upright's device frame: diag(−1, −1, +1) · M · raw.
    public func gravity(_ raw: (Double, Double, Double)) -> (x: Double, y: Double, z: Double) {
        let m = apply(raw)
        return (-m.0, -m.1, m.2)
    }

    public var description: String {
        rows.map { $0.map { fmt3($0) }.joined(separator: ", ") }.joined(separator: "; ")
    }
}

/// Where the matrix in use came from.
public enum MountMatrixSource: String, Sendable, Hashable {
    case configuration
    case udev = "udev ACCEL_MOUNT_MATRIX"
    case sysfs = "sysfs mount_matrix"
    case identity = "identity (none given)"
}

func fmt3(_ v: Double) -> String {
    if v == v.rounded(), abs(v) < 1e9 { return String(Int(v)) }
    var s = String((v * 1000).rounded() / 1000)
    if s.hasSuffix(".0") { s.removeLast(2) }
    return s
}
