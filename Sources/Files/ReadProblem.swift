import Glibc

/// Why a file cannot be read, in the system's words: `nil` when it can. Said the same way for a
/// configuration, a trace and a playlist entry: "no such file or directory", "is a directory",
/// "permission denied".
public func readProblem(_ path: String) -> String? {
    var info = stat()
    guard stat(path, &info) == 0 else { return systemError(errno) }
    if info.st_mode & S_IFMT == S_IFDIR { return "is a directory" }
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { return systemError(errno) }
    close(fd)
    return nil
}

/// `strerror`'s words for `code`, starting lower-case as in a sentence.
public func systemError(_ code: Int32) -> String {
    let words = String(cString: strerror(code))
    return words.prefix(1).lowercased() + words.dropFirst()
}
