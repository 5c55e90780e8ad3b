import ArgumentParser
import Config
import Foundation
import Glibc
import HummingbirdBcrypt

/// `upright web-password`: asks for the page's password twice (or reads one line from a pipe) and
/// writes its bcrypt hash, never the password, to the file `[web] password_file` names.
struct WebPasswordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web-password",
        abstract: "Set the operator's page's password: its bcrypt hash goes to the password file.",
        discussion: """
            Asks for the password twice on a terminal; from a pipe, reads it from the first line \
            (`printf '%s\\n' "$PASSWORD" | upright web-password`). The file is written atomically, \
            mode 0640, in the group `upright` when that group exists (the service reads it as the \
            user `upright`). A running Upright reads it at its next start.
            """)

    @Option(help: "The password file ([web] password_file).")
    var file = WebSettings().passwordFile

    @Option(help: "bcrypt's cost: 2^COST rounds (10 to 16).")
    var cost = 12

    func validate() throws {
        guard (10...16).contains(cost) else { throw ValidationError("--cost must be 10 to 16, not \(cost)") }
        guard file.hasPrefix("/") else { throw ValidationError("--file must be an absolute path, not '\(file)'") }
    }

    func run() throws {
        let password: String
        if isatty(0) == 1 {
            let first = try Self.ask("New password for the page: ")
            let second = try Self.ask("The same again: ")
            guard first == second else { throw CLIFailure("the two passwords differ; nothing written") }
            password = first
        } else {
            guard let line = readLine(strippingNewline: true) else {
                throw CLIFailure("no password on standard input; nothing written")
            }
            password = line
        }
        guard password.count >= 8 else {
            throw CLIFailure("the password is shorter than 8 characters; nothing written")
        }
        guard password.utf8.count <= 72 else {
            throw CLIFailure("the password is longer than 72 bytes, bcrypt's limit; nothing written")
        }
        let hash = Bcrypt.hash(password, cost: UInt8(cost))
        try write(hash + "\n")
        writeStandardError("upright: the page's password hash written to \(file)\n")
    }

    /// Reads a line from the terminal without echo.
    static func ask(_ prompt: String) throws -> String {
        writeStandardError(prompt)
        var saved = termios()
        tcgetattr(0, &saved)
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(0, TCSAFLUSH, &quiet)
        defer {
            tcsetattr(0, TCSAFLUSH, &saved)
            writeStandardError("\n")
        }
        guard let line = readLine(strippingNewline: true) else {
            throw CLIFailure("no password given; nothing written")
        }
        return line
    }

    func write(_ text: String) throws {
        let directory = (file as NSString).deletingLastPathComponent
        let temporary = "\(directory)/.\((file as NSString).lastPathComponent).\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CLIFailure("cannot write in \(directory): \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        if let group = getgrnam("upright") { fchown(fd, getuid() == 0 ? 0 : getuid(), group.pointee.gr_gid) }
        fchmod(fd, 0o640)
        let synced = fsync(fd) == 0
        close(fd)
        guard n == bytes.count, synced, rename(temporary, file) == 0 else {
            let e = errno
            unlink(temporary)
            throw CLIFailure("cannot write \(file): \(String(cString: strerror(e)))")
        }
    }
}
