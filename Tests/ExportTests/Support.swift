import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec

/// Small files for the export tests.
enum ExportFixtures {
    /// Writes a `width × height` PNG whose pixels depend on `shade`, creating parent directories.
    static func png(at path: String, width: Int = 5, height: Int = 3, shade: UInt8 = 0) throws {
        let bytes = (0..<(width * height * 4)).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ Int(shade)) }
        let data = try PNGEncoder.encode(PixelBuffer(width: width, height: height, depth: .eight, bytes: bytes))
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Data(data).write(to: URL(fileURLWithPath: path))
    }

    /// Writes `text` at `path`, creating parent directories.
    static func file(at path: String, _ text: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
}
