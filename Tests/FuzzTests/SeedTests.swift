import Foundation
import FuzzTargets
import Testing

/// Every seed of the fuzz targets (`Tests/FuzzSeeds/TARGET/`: hand-made inputs, and each input a
/// fuzzer run found and that was fixed) read again by its parser: each ends in a value or an
/// error, in time.
@Suite struct FuzzSeedTests {
    static let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../FuzzSeeds").standardized.path

    @Test(arguments: FuzzTarget.allCases)
    func everySeedIsReadToItsEnd(_ target: FuzzTarget) throws {
        let dir = Self.seeds + "/" + target.rawValue
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(!files.isEmpty, "no seeds in \(dir)")
        for file in files {
            let data = try #require(FileManager.default.contents(atPath: dir + "/" + file))
            let start = ContinuousClock.now
            target.run(Array(data))
            #expect(start.duration(to: .now) < .seconds(10), "\(target) \(file)")
        }
    }
}
