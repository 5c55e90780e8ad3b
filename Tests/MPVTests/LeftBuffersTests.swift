import Testing

@testable import MPV

@Suite("mpv's picture files in a process's mappings")
struct LeftBuffersTests {
    @Test func onlyMpvsMemoryFilesAreFound() {
        let maps = """
            55d0c8a00000-55d0c8a21000 rw-p 00000000 00:00 0                          [heap]
            7f1c2a000000-7f1c2a387000 rw-s 00000000 00:01 2051                       /memfd:mpv (deleted)
            7f1c2b000000-7f1c2b001000 rw-s 00000000 00:01 2052                       /memfd:mpvx (deleted)
            7f1c2c000000-7f1c2c010000 r--s 00000000 00:01 2053                       /memfd:xkb (deleted)
            7f1c2d000000-7f1c2d387000 rw-s 00000000 00:01 2054                       /memfd:mpv (deleted)
            7f1c2e000000-7f1c2e100000 r-xp 00000000 08:01 1234                       /usr/lib/x86_64-linux-gnu/libmpv.so.2
            7f1c2f000000-7f1c2f001000 rw-p 00000000 00:00 0
            """
        let found = MPVCores.bufferMappings(in: maps)
        #expect(found.map(\.start) == [0x7f1c_2a00_0000, 0x7f1c_2d00_0000])
        #expect(found.map { $0.end - $0.start } == [0x387000, 0x387000])
    }
}
