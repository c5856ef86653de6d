import Foundation
import ImageCore
import KilnTestSupport

/// Small PNGs whose eXIf states an EXIF orientation, and the picture a viewer
/// that honours the tag shows of them (issue 24, SPEC §4.1).
enum OrientedImages {
    /// The stored image's size: not square, so a quarter turn shows.
    static let width = 6, height = 4

    /// The stored RGB samples of pixel (x, y): every pixel distinct (red says x, green y).
    static func stored(_ x: Int, _ y: Int) -> [UInt8] {
        [UInt8(x * 40), UInt8(y * 60), UInt8((x + width * y) * 10)]
    }

    /// A TIFF stream: IFD0 with Orientation (SHORT) and a pointer to an Exif
    /// sub-IFD holding PixelXDimension (SHORT) and PixelYDimension (LONG) of
    /// the stored image, little-endian ("II") or big-endian ("MM").
    static func exif(orientation: Int, littleEndian: Bool) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] {
            let b = [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
            return littleEndian ? b.reversed() : b
        }
        func u32(_ v: Int) -> [UInt8] {
            let b = [24, 16, 8, 0].map { UInt8(v >> $0 & 0xFF) }
            return littleEndian ? b.reversed() : b
        }
        // A SHORT sits left-aligned in the 4-byte value field.
        func entry(_ tag: Int, _ type: Int, _ value: Int) -> [UInt8] {
            u16(tag) + u16(type) + u32(1) + (type == 3 ? u16(value) + [0, 0] : u32(value))
        }
        let header: [UInt8] = (littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]) + u16(42) + u32(8)
        // IFD0 at 8: 2 entries, next-IFD 0 → the Exif IFD at 8 + 2 + 24 + 4 = 38.
        let ifd0 = u16(2) + entry(0x0112, 3, orientation) + entry(0x8769, 4, 38) + u32(0)
        let exifIFD = u16(2) + entry(0xA002, 3, width) + entry(0xA003, 4, height) + u32(0)
        return header + ifd0 + exifIFD
    }

    /// The 6×4 PNG with `exif` (nil: none) in an eXIf chunk before its image
    /// data, or after it when `late`.
    static func png(exif: [UInt8]?, late: Bool = false) -> [UInt8] {
        let rows = (0..<height).map { y in (0..<width).flatMap { x in stored(x, y) } }
        let chunk = exif.map { PNGBytes.chunk("eXIf", $0) } ?? []
        let image = PNGBytes.stored(width: UInt32(width), colorType: 2, rows: rows, before: late ? [] : chunk)
        // Late: between the image data and IEND (the last 12 bytes).
        return late ? Array(image.dropLast(12)) + chunk + image.suffix(12) : image
    }

    /// Where stored pixel the displayed pixel (x, y) comes from, straight from
    /// the EXIF definitions of where the stored 0th row and 0th column appear:
    /// 2 row 0 top, col 0 right; 3 bottom, right; 4 bottom, left; 5 row 0 left,
    /// col 0 top; 6 right, top; 7 right, bottom; 8 left, bottom.
    static func source(ofDisplayed x: Int, _ y: Int, orientation: Int) -> (x: Int, y: Int) {
        let w = width, h = height
        switch orientation {
        case 2: return (w - 1 - x, y)
        case 3: return (w - 1 - x, h - 1 - y)
        case 4: return (x, h - 1 - y)
        case 5: return (y, x)
        case 6: return (y, h - 1 - x)
        case 7: return (w - 1 - y, h - 1 - x)
        case 8: return (w - 1 - y, x)
        default: return (x, y)
        }
    }

    /// The displayed image's size.
    static func displayedSize(orientation: Int) -> (width: Int, height: Int) {
        (5...8).contains(orientation) ? (height, width) : (width, height)
    }

    /// The displayed picture as RGBA 8-bit rows (the decoder's canonical form, opaque).
    static func displayed(orientation: Int) -> [UInt8] {
        let size = displayedSize(orientation: orientation)
        return (0..<size.height).flatMap { y in
            (0..<size.width).flatMap { x in
                let s = source(ofDisplayed: x, y, orientation: orientation)
                return stored(s.x, s.y) + [255]
            }
        }
    }

    /// EXIF blocks whose orientation no reader can trust (the header or IFD0
    /// damaged or cut short), each orientation 6 before the damage.
    /// (A whole IFD0 whose orientation is out of range, 9, is no damage: OrientationTests'
    /// `anOrientationOutsideOneToEightTurnsNothingAndBecomesOne`.)
    static let damagedExif: [[UInt8]] = {
        let big = exif(orientation: 6, littleEndian: false)
        var countHuge = big
        countHuge[8...9] = [0xFF, 0xFF]  // IFD0 claims 65535 entries
        var offsetPastEnd = big
        offsetPastEnd[4...7] = [0x7F, 0xFF, 0xFF, 0xF0]  // IFD0 beyond the stream
        var wrongType = big
        wrongType[13] = 2  // orientation stored as ASCII
        var badMagic = big
        badMagic[3] = 43
        // Cut inside IFD0's second entry, inside the header, at the byte-order mark; empty; not TIFF.
        return [Array(big.prefix(30)), Array(big.prefix(20)), Array(big.prefix(9)), Array(big.prefix(4)), [],
                Array("not a TIFF stream".utf8), countHuge, offsetPastEnd, wrongType, badMagic]
    }()

    /// EXIF blocks with a whole IFD0 (orientation 6) and a damaged Exif
    /// sub-IFD: the orientation holds, the dimensions cannot be patched.
    static let damagedExifSubdirectory: [[UInt8]] = {
        let big = exif(orientation: 6, littleEndian: false)
        var pointerPastEnd = big
        pointerPastEnd[30...33] = [0xFF, 0xFF, 0xFF, 0xFF]  // the sub-IFD beyond the stream
        var pointerToSelf = big
        pointerToSelf[30...33] = [0, 0, 0, 8]  // the sub-IFD pointer back to IFD0
        var countHuge = big
        countHuge[38...39] = [0x10, 0]  // the sub-IFD claims 4096 entries
        // Cut inside the sub-IFD.
        return [pointerPastEnd, pointerToSelf, countHuge, Array(big.prefix(50))]
    }()

    /// The output's EXIF orientation and pixel dimensions as `exiftool -n` reads them (one a line), or nil when exiftool is not installed.
    static func exiftoolOrientation(_ path: String) throws -> String? {
        let tool = "/usr/bin/exiftool"
        guard FileManager.default.isExecutableFile(atPath: tool) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        // exiftool names 0xA002/0xA003 ExifImageWidth/ExifImageHeight.
        process.arguments = ["-s3", "-n", "-Orientation", "-ExifImageWidth", "-ExifImageHeight", path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
