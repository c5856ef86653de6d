import Foundation
import PNGCodec

/// The PngSuite conformance images, read in place from `<repo>/../shared/corpus/pngsuite` (SPEC §7).
enum Corpus {
    /// The repository root, from this file's location.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The PngSuite folder.
    static let pngSuite = repositoryRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/corpus/pngsuite")

    /// File names of every `.png` in PngSuite, sorted.
    static func allFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: pngSuite.path)
            .filter { $0.hasSuffix(".png") }
            .sorted()
    }

    /// The 161 valid files (all but `x*.png`).
    static func validFiles() throws -> [String] { try allFiles().filter { !$0.hasPrefix("x") } }

    /// The 14 deliberately corrupt files.
    static func corruptFiles() throws -> [String] { try allFiles().filter { $0.hasPrefix("x") } }

    /// Full path of a PngSuite file.
    static func path(_ name: String) -> String { pngSuite.appendingPathComponent(name).path }

    /// The bytes of a PngSuite file.
    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: pngSuite.appendingPathComponent(name)))
    }
}

extension PixelBuffer {
    /// The samples with 16-bit ones in big-endian order (the reference format).
    var bigEndianBytes: [UInt8] {
        guard depth == .sixteen else { return bytes }
        var out = bytes
        out.withUnsafeMutableBytes { raw in
            for i in stride(from: 0, to: raw.count, by: 2) {
                let sample = raw.load(fromByteOffset: i, as: UInt16.self).bigEndian
                raw.storeBytes(of: sample, toByteOffset: i, as: UInt16.self)
            }
        }
        return out
    }
}
