import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec

/// A folder of many small images made once per test process, like corpus S1
/// (`Scripts/make-s1`): seeded RGBA 64×64 gradients with noise and an alpha
/// ramp. Exported with `--resize 32x32`, as the S1 benchmark is.
enum SmallImages {
    static let count = 400
    static let size = 64
    /// The operations of every export of this folder.
    static let operations = ["--resize", "32x32", "--device", "cpu"]
    /// A fixed tIME for every run, so that outputs of separate runs compare byte for byte.
    static let environment = ["SOURCE_DATE_EPOCH": "1700000000"]

    /// The folder (created on first use).
    static let directory: String = {
        let dir = testScratch + "/small"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for index in 0..<count {
            var rng = SeededGenerator(seed: UInt64(index))
            let base = (0..<3).map { _ in Int(rng.next() & 255) }
            var bytes = [UInt8](repeating: 0, count: size * size * 4)
            for y in 0..<size {
                for x in 0..<size {
                    let o = (y * size + x) * 4
                    for c in 0..<3 {
                        bytes[o + c] = UInt8(truncatingIfNeeded: base[c] + x * (c + 1) + y * (3 - c) + Int(rng.next() & 7))
                    }
                    bytes[o + 3] = UInt8(min(255, 64 + (x + y) * 2))
                }
            }
            let png = try! PNGEncoder.encode(PixelBuffer(width: size, height: size, depth: .eight, bytes: bytes),
                                             options: .init(level: 6))
            _ = FileManager.default.createFile(atPath: dir + String(format: "/%06d.png", index), contents: Data(png))
        }
        return dir
    }()

    /// An uninterrupted export of the folder, made once, to compare interrupted runs against.
    static let reference: String = {
        let dir = testScratch + "/small-reference"
        let r = try! kiln(["export", directory, "--output", dir, "--progress", "none"] + operations,
                          environment: environment)
        precondition(r.status == 0, "reference export failed: \(r.stderr)")
        return dir
    }()

    /// The outputs of `directory` that differ from the reference's (a missing or extra file included).
    static func mismatches(_ directory: String) -> [String] {
        let names = Paths.pngs(in: reference)
        var mismatches = names.filter {
            !FileManager.default.contentsEqual(atPath: reference + "/" + $0, andPath: directory + "/" + $0)
        }
        let present = Paths.pngs(in: directory)
        if present != names { mismatches.append("file list differs: \(present.count) files, not \(names.count)") }
        return mismatches
    }
}
