/// A storage error the kernel logged: an SD card's or a disk's I/O failing.
public struct StorageError: Sendable, Hashable {
    public var device: String
    public var message: String
    /// Microseconds since boot, as the kernel stamps its log.
    public var micros: UInt64
}

/// Storage errors read from the kernel log's records (`/dev/kmsg`: `PRI,SEQ,USEC,FLAGS;TEXT`).
public enum StorageErrors {
    /// The storage error a record says, if it says one: a block device's failed request (the
    /// block layer's `KIND error, dev NAME`: `I/O`, `critical medium`, `timeout`, `critical
    /// target`, ...), a buffer I/O error, an mmc host's error, or a file system's error.
    public static func parse(_ record: String) -> StorageError? {
        guard let semicolon = record.firstIndex(of: ";") else { return nil }
        let header = record[..<semicolon].split(separator: ",")
        guard header.count >= 3, let micros = UInt64(header[2]) else { return nil }
        return parse(text: String(record[record.index(after: semicolon)...]), micros: micros)
    }

    /// The same of a record's text alone, stamped `micros` (the journal's kernel records).
    public static func parse(text whole: String, micros: UInt64) -> StorageError? {
        let text = String(whole.prefix(400))
        let lower = text.lowercased()
        for (marker, end) in [
            (" error, dev ", [",", " "]), ("buffer i/o error on dev ", [",", " "]),
            ("ext4-fs error (device ", [")"]), ("f2fs-fs (", [")"]),
        ] {
            if let r = lower.range(of: marker) {
                let rest = text[r.upperBound...]
                let device = rest.prefix { !end.contains(String($0)) }
                if !device.isEmpty, lower.contains("error") {
                    return StorageError(device: String(device), message: text, micros: micros)
                }
            }
        }
        if lower.hasPrefix("mmc"), let colon = text.firstIndex(of: ":"),
            lower.contains("error") || lower.contains("timeout")
        {
            return StorageError(device: String(text[..<colon]), message: text, micros: micros)
        }
        return nil
    }
}
