import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec

/// The PngSuite conformance images kept in the repository (`Tests/Fixtures/PngSuite`,
/// SPEC §7); every listing is checked against its manifest first (``Fixtures``).
enum Corpus {
    /// The PngSuite folder.
    static let pngSuite = URL(fileURLWithPath: Fixtures.pngSuite)

    /// File names of every `.png` in PngSuite, sorted.
    static func allFiles() throws -> [String] { try Fixtures.pngSuiteFiles() }

    /// The 161 valid files (all but `x*.png`).
    static func validFiles() throws -> [String] { try Fixtures.validPngSuiteFiles() }

    /// The 14 deliberately corrupt files.
    static func corruptFiles() throws -> [String] { try Fixtures.corruptPngSuiteFiles() }

    /// Full path of a PngSuite file.
    static func path(_ name: String) -> String { pngSuite.appendingPathComponent(name).path }

    /// The bytes of a PngSuite file (a missing or empty one throws ``MissingFixture``).
    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Fixtures.pngSuitePath(name))))
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
