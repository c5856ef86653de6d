import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec

/// A folder of photo-sized images made once per test process: smooth
/// gradients with grain, so they compress like photographs and take long
/// enough to export that a test can interrupt a job in the middle.
enum LargeImages {
    static let count = 24
    static let width = 1000, height = 750

    /// The folder (created on first use).
    static let directory: String = {
        let dir = testScratch + "/large"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var rng = SeededGenerator(seed: 20261122)
        for index in 0..<count {
            let png = photo(width: width, height: height, phase: Double(index) * 0.7, using: &rng)
            _ = FileManager.default.createFile(atPath: dir + String(format: "/photo%02d.png", index), contents: Data(png))
        }
        return dir
    }()

    /// A photo-like PNG (level 1) of `width × height`: gradients with grain, a wave shifted by `phase`.
    static func photo(width: Int, height: Int, phase: Double = 0, using rng: inout SeededGenerator) -> [UInt8] {
        var bytes = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let o = (y * width + x) * 4
                let grain = Int(rng.next() & 15) - 8
                let fx = Double(x) / Double(width), fy = Double(y) / Double(height)
                bytes[o] = UInt8(clamping: Int(255 * fx) + grain)
                bytes[o + 1] = UInt8(clamping: Int(255 * fy) + grain)
                bytes[o + 2] = UInt8(clamping: Int(127.5 + 127.5 * sin(6 * fx + 4 * fy + phase)) + grain)
            }
        }
        return try! PNGEncoder.encode(PixelBuffer(width: width, height: height, depth: .eight, bytes: bytes),
                                      options: .init(level: 1))
    }

    /// An uninterrupted export of the folder, made once, to compare interrupted runs against.
    static let reference: (directory: String, secondsPerImage: Double) = {
        let dir = testScratch + "/large-reference"
        let r = try! kiln(["export", directory, "--output", dir, "--progress", "none", "--jobs", "2"])
        precondition(r.status == 0, "reference export failed: \(r.stderr)")
        return (dir, r.elapsed.seconds / Double(count) * 2)
    }()

    /// Names of the output files (no journal) in `directory`.
    static func outputs(in directory: String) -> [String] { Paths.pngs(in: directory) }

    /// Whether every output in `directory` is byte-identical to the reference's.
    static func matchesReference(_ directory: String) -> [String] {
        let names = outputs(in: reference.directory)
        var mismatches = names.filter {
            !FileManager.default.contentsEqual(atPath: reference.directory + "/" + $0, andPath: directory + "/" + $0)
        }
        if outputs(in: directory) != names { mismatches.append("file list differs: \(outputs(in: directory))") }
        return mismatches
    }
}

extension Duration {
    /// Seconds as a `Double`.
    var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) * 1e-18
    }
}
