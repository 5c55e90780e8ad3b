import Foundation
import FuzzTargets

/// A line on standard error.
func say(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }

#if FUZZING
    /// libFuzzer's entry (`make fuzz`): the target is `UPRIGHT_FUZZ`, one of `FuzzTarget`'s names.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        guard let data else { return 0 }
        target.run(Array(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }

    /// The package manager links an executable's entry as `upright_fuzz_main` (its `main` is that
    /// symbol): it hands the process to libFuzzer's driver.
    @_cdecl("upright_fuzz_main")
    public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
        var count = argc
        var arguments = argv
        return fuzzerDriver(&count, &arguments, fuzzOne)
    }

    /// libFuzzer's own driver (`LLVMFuzzerRunDriver`, in the toolchain's fuzzer runtime).
    @_silgen_name("LLVMFuzzerRunDriver")
    func fuzzerDriver(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32

    // Read once: libFuzzer runs one target per process.
    nonisolated(unsafe) let target: FuzzTarget = {
        let name = getenv("UPRIGHT_FUZZ").map { String(cString: $0) } ?? ""
        guard let t = FuzzTarget(rawValue: name) else {
            say(
                "upright-fuzz: UPRIGHT_FUZZ must be one of \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")), not '\(name)'"
            )
            exit(2)
        }
        return t
    }()
#else
    /// Without the fuzzer: `upright-fuzz TARGET FILE…` reads each file with the target's parser
    /// (a finding replayed by hand).
    @main struct Replay {
        static func main() {
            let args = CommandLine.arguments.dropFirst()
            guard let name = args.first, let target = FuzzTarget(rawValue: name) else {
                say("usage: upright-fuzz \(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")) FILE...")
                exit(2)
            }
            for file in args.dropFirst() {
                guard let data = FileManager.default.contents(atPath: file) else {
                    say("upright-fuzz: \(file) cannot be read")
                    exit(1)
                }
                target.run(Array(data))
                print("\(name): \(file): read")
            }
        }
    }
#endif
