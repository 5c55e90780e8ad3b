import CIIO
import Glibc
import SystemPackage

/// Reads one numeric attribute of a channel again and again: the per-sample path of a poller.
///
/// On a local context libiio opens, reads and closes the attribute's sysfs file for every read.
/// This reader asks libiio for the file's name once and reads a ``KeptOpenFile``: one system call
/// a read instead of several, and a fraction of the CPU time. On any other context (iiod, USB,
/// XML) every read goes through libiio.
public final class IIOValueReader {
    let channel: IIOChannel
    let attribute: String
    /// The attribute's sysfs file, on a local context.
    let file: KeptOpenFile?

    init(channel: IIOChannel, attribute: String) {
        self.channel = channel
        self.attribute = attribute
        if channel.device.context.name == "local", let name = iio_channel_attr_get_filename(channel.handle, attribute) {
            file = KeptOpenFile(path: "/sys/bus/iio/devices/\(channel.device.id)/\(String(cString: name))")
        } else {
            file = nil
        }
    }

    /// True when reads go to a kept-open sysfs file rather than through libiio.
    public var readsDirectly: Bool { file != nil }

    /// Reads the attribute as a finite number.
    ///
    /// - Throws: ``IIOError`` as ``IIOChannel/readDouble(_:)`` does: a failed read names the device,
    ///   the channel, the attribute and the errno's message; a text that is not a number has code `EINVAL`.
    public func read() throws(IIOError) -> Double {
        guard let file else { return try channel.readDouble(attribute) }
        return try withUnsafeTemporaryAllocation(of: CChar.self, capacity: 128) { buffer throws(IIOError) -> Double in
            let code = file.read(into: buffer)
            if code != 0 { throw IIOError.from(channel.describe("reading", attribute), code: code) }
            return try channel.parseNumber(buffer.baseAddress!, attribute: attribute)
        }
    }
}

/// A sysfs attribute file kept open and read with `pread` at offset 0, which makes sysfs produce the
/// value anew.
///
/// A sysfs file of a device that went away answers `ENODEV`. For a tree that does not (plain files,
/// as in tests), the path is checked once a second: the file is opened again when it was replaced,
/// and a path that is gone is an error, as opening it would be.
final class KeptOpenFile {
    let path: String
    private var file: FileDescriptor?
    private var identity = (device: dev_t(0), inode: ino_t(0))
    private var checked = 0.0
    /// Seconds between checks that the open file is still the one at the path.
    let checkInterval: Double

    init(path: String, checkInterval: Double = 1) {
        self.path = path
        self.checkInterval = checkInterval
    }

    deinit { closeFile() }

    /// Reads the file's text into `buffer`, NUL-terminated (at most `buffer.count - 1` bytes).
    ///
    /// - Returns: 0, or the errno of the failed call (the file is then opened again next time).
    func read(into buffer: UnsafeMutableBufferPointer<CChar>) -> Int32 {
        if let code = openIfNeeded() { return code }
        guard let file else { return EBADF }
        do {
            let n = try file.read(
                fromAbsoluteOffset: 0,
                into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer.dropLast())),
                retryOnInterrupt: true)
            buffer[n] = 0
            return 0
        } catch let error as Errno {
            closeFile()
            return error.rawValue
        } catch {
            closeFile()
            return EIO
        }
    }

    private func openIfNeeded() -> Int32? {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &now)
        let t = Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9
        if file != nil {
            guard t - checked >= checkInterval else { return nil }
            checked = t
            var st = stat()
            if stat(path, &st) != 0 {
                let code = errno
                closeFile()
                return code
            }
            if st.st_dev == identity.device, st.st_ino == identity.inode { return nil }
            closeFile()
        }
        let opened: FileDescriptor
        do {
            opened = try FileDescriptor.open(FilePath(path), .readOnly, options: .closeOnExec)
        } catch let error as Errno {
            return error.rawValue
        } catch {
            return EIO
        }
        var st = stat()
        _ = fstat(opened.rawValue, &st)
        file = opened
        identity = (st.st_dev, st.st_ino)
        checked = t
        return nil
    }

    private func closeFile() {
        try? file?.close()
        file = nil
    }
}
