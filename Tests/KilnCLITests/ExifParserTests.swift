@testable import ImageCore
import KilnTestSupport
import Testing

/// A little-endian SHORT, and LONG.
private func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
private func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16) }

/// The shared EXIF parser (`ImageCore.Exif`) on whole, rewritten and damaged streams.
@Suite struct ExifParserTests {
    @Test(arguments: [false, true])
    func readsOrientationAndDimensionsInEitherByteOrder(littleEndian: Bool) throws {
        let exif = try #require(Exif(OrientedImages.exif(orientation: 6, littleEndian: littleEndian)))
        #expect(exif.orientation == 6)
        #expect(exif.pixelDimensions.width == 6 && exif.pixelDimensions.height == 4)
    }

    @Test(arguments: [false, true])
    func rewritesInPlaceKeepingTheLayout(littleEndian: Bool) throws {
        let stream = OrientedImages.exif(orientation: 8, littleEndian: littleEndian)
        let rewritten = try #require(Exif(stream)).rewritten(orientation: 1, width: 70_000, height: 6)
        #expect(rewritten.count == stream.count)
        let exif = try #require(Exif(rewritten))
        #expect(exif.orientation == 1)
        // 70000 does not fit the SHORT it was found as: the entry becomes a LONG.
        #expect(exif.pixelDimensions.width == 70_000 && exif.pixelDimensions.height == 6)
        // Only the patched value fields (and the widened entry's type) changed.
        let changed = zip(stream, rewritten).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        #expect(changed.allSatisfy { (18...19).contains($0) || (42...51).contains($0) || (60...63).contains($0) },
                "\(changed)")
        // Nothing asked for: byte for byte.
        #expect(try #require(Exif(stream)).rewritten(orientation: nil, width: 6, height: 4) == stream)
    }

    /// A quarter turn swaps IFD0's densities (each entry takes the other's type, count and value offset), and a
    /// conversion sets ColorSpace and the DCF index to the output's colours; the layout stays, byte for byte elsewhere.
    @Test(arguments: [false, true])
    func swapsTheDensitiesAndSaysTheColours(littleEndian: Bool) throws {
        func u16(_ v: Int) -> [UInt8] { littleEndian ? le16(v) : le16(v).reversed() }
        func u32(_ v: Int) -> [UInt8] { littleEndian ? le32(v) : le32(v).reversed() }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] {
            u16(tag) + u16(type) + u32(count) + value
        }
        // IFD0 at 8 (3 entries: XResolution → 50, YResolution → 58, the Exif sub-IFD → 66; next 0), the two RATIONALs
        // at 50 and 58 (300/1, 150/1), the Exif sub-IFD at 66 (ColorSpace 1, Interoperability → 96; next 0), the
        // Interoperability directory at 96 (its index "R98"; next 0).
        let ifd0 = u16(3) + entry(0x011A, 5, 1, u32(50)) + entry(0x011B, 5, 1, u32(58)) + entry(0x8769, 4, 1, u32(66)) + u32(0)
        let values = u32(300) + u32(1) + u32(150) + u32(1)
        let exifIFD = u16(2) + entry(0xA001, 3, 1, u16(1) + [0, 0]) + entry(0xA005, 4, 1, u32(96)) + u32(0)
        let interop = u16(1) + entry(0x0001, 2, 4, Array("R98\0".utf8)) + u32(0)
        let stream = Array((littleEndian ? "II" : "MM").utf8) + u16(42) + u32(8) + ifd0 + values + exifIFD + interop
        #expect(stream.count == 114)
        let parsed = try #require(Exif(stream))
        let turned = parsed.rewritten(orientation: nil, width: 1, height: 1, transposed: true)
        #expect(Array(turned[18..<22]) == u32(58) && Array(turned[30..<34]) == u32(50), "XResolution → 150, YResolution → 300")
        #expect(stream.indices.filter { stream[$0] != turned[$0] } == (littleEndian ? [18, 30] : [21, 33]), "only the two offsets' low bytes")
        #expect(parsed.rewritten(orientation: nil, width: 1, height: 1) == stream, "not turned: as it was")
        let p3 = parsed.describingColours(sRGB: false)
        #expect(Array(p3[76..<78]) == [0xFF, 0xFF], "ColorSpace uncalibrated")
        #expect(Array(p3[106..<110]) == [0, 0, 0, 0], "no DCF index")
        #expect(p3.count == stream.count)
        var adobe = stream
        adobe.replaceSubrange(106..<110, with: Array("R03\0".utf8))
        adobe.replaceSubrange(76..<78, with: [0xFF, 0xFF])
        #expect(try #require(Exif(adobe)).describingColours(sRGB: true) == stream, "Adobe RGB's converted to sRGB: says sRGB")
        var thumbnail = stream
        thumbnail.replaceSubrange(106..<110, with: Array("THM\0".utf8))
        #expect(Array(try #require(Exif(thumbnail)).describingColours(sRGB: false)[106..<110]) == Array("THM\0".utf8),
                "another index is no colour space: kept")
    }

    /// IFD0's ImageWidth and ImageLength (TIFF-born EXIF) say the output's size too, and the thumbnail's directory
    /// (IFD1) is unlinked when asked: both stayed as the source's, a stale size and a sideways thumbnail.
    @Test func rewritesTheFirstDirectorysSizeAndUnlinksTheThumbnail() throws {
        func entry(_ tag: Int, _ type: Int, _ value: Int) -> [UInt8] {
            le16(tag) + le16(type) + le32(1) + (type == 3 ? le16(value) + [0, 0] : le32(value))
        }
        // Header, IFD0 at 8 (3 entries, next IFD at 50), IFD1 at 50 (1 entry: the thumbnail's offset, 0x0201).
        let ifd0 = le16(3) + entry(0x0100, 3, 400) + entry(0x0101, 3, 600) + entry(0x0112, 3, 6) + le32(50)
        let stream = Array("II".utf8) + le16(42) + le32(8) + ifd0 + le16(1) + entry(0x0201, 4, 80) + le32(0)
        let patched = try #require(Exif(stream)).rewritten(orientation: 1, width: 300, height: 200, droppingThumbnail: true)
        let exif = try #require(Exif(patched))
        #expect(exif.value(of: Exif.Tag.imageWidth, in: .primary) == 300 && exif.value(of: Exif.Tag.imageLength, in: .primary) == 200)
        #expect(exif.orientation == 1)
        #expect(Array(patched[46..<50]) == [0, 0, 0, 0], "IFD0 links to no IFD1")
        let kept = try #require(Exif(stream)).rewritten(orientation: 1, width: 300, height: 200)
        #expect(Array(kept[46..<50]) == le32(50), "kept unless asked")
    }

    /// A thumbnail left out goes whole: its directory, its values and its picture are zeroed, and cut where they
    /// end the stream. Unlinked only, a crop's thumbnail still held the uncropped picture for anyone to carve out.
    @Test func aDroppedThumbnailsBytesGo() throws {
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: Int) -> [UInt8] {
            le16(tag) + le16(type) + le32(count) + (type == 3 ? le16(value) + [0, 0] : le32(value))
        }
        let picture = [0xFF, 0xD8] + [UInt8](repeating: 0xAB, count: 19)  // a JPEG's SOI first
        // IFD0 at 8 (2 entries: orientation, the Exif sub-IFD's offset; next IFD at 38). IFD1 at 38 (3 entries:
        // XResolution, a RATIONAL stored at 80; the thumbnail at 88, 21 bytes), 42 bytes; 8 bytes of resolution.
        func stream(exifAt exif: Int?) -> [UInt8] {
            let ifd0 = le16(2) + entry(0x0112, 3, 1, 6) + entry(0x8769, 4, 1, exif ?? 0) + le32(38)
            let ifd1 = le16(3) + entry(0x011A, 5, 1, 80) + entry(0x0201, 4, 1, 88) + entry(0x0202, 4, 1, 21) + le32(0)
            var bytes = Array("II".utf8) + le16(42) + le32(8) + ifd0 + ifd1 + le32(72) + le32(1) + picture
            if exif != nil { bytes += [0] + le16(1) + entry(0xA002, 4, 1, 400) + le32(0) }  // pad byte, then the sub-IFD
            return bytes
        }
        // At the end of the stream (with its pad byte): cut off where IFD1 began.
        var ending = stream(exifAt: nil)
        ending += [0]
        let cut = try #require(Exif(ending)).rewritten(orientation: 1, width: 3, height: 2, droppingThumbnail: true)
        #expect(cut.count == 38, "\(cut.count)")
        #expect(try #require(Exif(cut)).orientation == 1)
        // Followed by the Exif sub-IFD: zeroed where it lies, the sub-IFD kept and patched.
        let inside = stream(exifAt: 110)
        let zeroed = try #require(Exif(inside)).rewritten(orientation: 1, width: 3, height: 2, droppingThumbnail: true)
        #expect(zeroed.count == inside.count)
        #expect(zeroed[38..<109].allSatisfy { $0 == 0 }, "IFD1, its resolution and the thumbnail zeroed")
        #expect(try #require(Exif(zeroed)).pixelDimensions.width == 3)
        // Not asked: every byte stays.
        #expect(try #require(Exif(inside)).rewritten(orientation: nil, width: 400, height: 2) == inside)
        // A thumbnail offset that names no JPEG (stale: the picture moved) zeroes nothing there.
        var stale = inside
        stale[88] = 0x12
        let unlinked = try #require(Exif(stale)).rewritten(orientation: 1, width: 3, height: 2, droppingThumbnail: true)
        #expect(Array(unlinked[88..<109]) == Array(stale[88..<109]), "not a JPEG: left as it was")
        // A length of 0 (a writer's slip): the JPEG is taken to its EOI; one that overlaps a value kept (here IFD0's
        // Make, stored where the picture's bytes claim to be) goes but for that value.
        var noLength = inside
        noLength[38 + 2 + 24 + 8 ..< 38 + 2 + 24 + 12] = [0, 0, 0, 0]  // 0x0202's value
        noLength.replaceSubrange(107..<110, with: [0xFF, 0xD9, 0x55])  // EOI, then a byte no directory names
        let ended = try #require(Exif(noLength)).rewritten(orientation: 1, width: 3, height: 2, droppingThumbnail: true)
        #expect(ended[88..<109].allSatisfy { $0 == 0 } && ended[109] == 0x55, "to its EOI: \(Array(ended[88..<110]))")
        // IFD0 at 8 (3 entries, to 50), IFD1 at 50 (to 80); the picture claims 80..<97, IFD0's Make is 84..<92.
        let ifd0 = le16(3) + entry(0x0112, 3, 1, 6) + entry(0x8769, 4, 1, 0) + entry(0x010F, 2, 8, 84) + le32(50)
        let ifd1 = le16(2) + entry(0x0201, 4, 1, 80) + entry(0x0202, 4, 1, 17) + le32(0)
        let overlapping = Array("II".utf8) + le16(42) + le32(8) + ifd0 + ifd1 + [0xFF, 0xD8, 1, 2] + Array("Canon\0\0\0".utf8)
            + [UInt8](repeating: 0xAB, count: 5)
        let shared = try #require(Exif(overlapping)).rewritten(orientation: 1, width: 3, height: 2, droppingThumbnail: true)
        #expect(shared.count == 92 && Array(shared[84..<92]) == Array("Canon\0\0\0".utf8), "the Make kept whole: \(shared)")
        #expect(shared[80..<84].allSatisfy { $0 == 0 }, "the rest zeroed, or cut at the end: \(shared)")
        // A value kept that starts before the picture, ends after it, or holds it whole (a MakerNote): never a trap,
        // the value whole, what is the picture's alone zeroed.
        // (IFD1 at 50 to 80; 4 free bytes; the picture claims 84..<101.)
        let later = le16(2) + entry(0x0201, 4, 1, 84) + entry(0x0202, 4, 1, 17) + le32(0)
        for (make, count) in [(82, 6), (96, 10), (82, 24)] {
            let ifd0 = le16(3) + entry(0x0112, 3, 1, 6) + entry(0x8769, 4, 1, 0) + entry(0x010F, 7, count, make) + le32(50)
            let stream = Array("II".utf8) + le16(42) + le32(8) + ifd0 + later + [1, 2, 3, 4, 0xFF, 0xD8]
                + [UInt8](repeating: 0xAB, count: 30)
            let rewritten = try #require(Exif(stream)).rewritten(orientation: 1, width: 3, height: 2, droppingThumbnail: true)
            let value = make..<(make + count)
            #expect(rewritten.count == stream.count && Array(rewritten[value]) == Array(stream[value]),
                    "the value at \(make) of \(count) kept: \(rewritten)")
            let picture = (84..<101).filter { !value.contains($0) }
            #expect(picture.allSatisfy { rewritten[$0] == 0 }, "the picture's own bytes zeroed: \(rewritten)")
        }
        // A link that leads back to IFD0 (damaged, a loop) is unlinked only: IFD0's Make, stored after it, stays whole.
        let make = Array("Canon".utf8) + [0, 0, 0]
        let loop = Array("II".utf8) + le16(42) + le32(8) + le16(1) + le16(0x010F) + le16(2) + le32(8) + le32(26) + le32(8) + make
        let kept = try #require(Exif(loop)).rewritten(orientation: nil, width: 3, height: 2, droppingThumbnail: true)
        #expect(kept.count == loop.count && Array(kept[26...]) == make && Array(kept[22..<26]) == [0, 0, 0, 0], "\(kept)")
        // Damaged (every prefix, every byte changed): never traps, never longer.
        for index in 0..<inside.count {
            for value: UInt8 in [0, 0x7F, 0xFF] {
                var damaged = Array(inside.prefix(index + 1))
                damaged[index] = value
                for stream in [damaged, Array(inside.prefix(index)) + [value] + inside.dropFirst(index + 1)] {
                    guard let exif = Exif(stream) else { continue }
                    #expect(exif.rewritten(orientation: 1, width: 3, height: 2, droppingThumbnail: true).count <= stream.count)
                }
            }
        }
    }

    /// Every prefix of a valid stream, and every single-byte change of it,
    /// parses and rewrites without trapping, keeping the stream's length.
    @Test func damagedStreamsNeverTrap() {
        let stream = OrientedImages.exif(orientation: 6, littleEndian: true)
        var streams = (0...stream.count).map { Array(stream.prefix($0)) } + OrientedImages.damagedExif
        for index in stream.indices {
            for value: UInt8 in [0, 1, 0x7F, 0xFF] {
                var changed = stream
                changed[index] = value
                streams.append(changed)
            }
        }
        for damaged in streams {
            guard let exif = Exif(damaged) else { continue }
            #expect(exif.orientation.map { (1...8).contains($0) } ?? true)
            #expect(exif.rewritten(orientation: 1, width: 4, height: 6).count == damaged.count)
            #expect(exif.rewritten(orientation: 1, width: 4, height: 6, droppingThumbnail: true).count <= damaged.count)
        }
        #expect(ImageMetadata(exif: Array(stream.prefix(20))).orientation == 1)
    }
}
