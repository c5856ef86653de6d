import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec
import Testing

/// Ancillary information carried from a decoded PNG to its encoded output
/// (`PNGMetadata`): kept where it still holds, dropped with a reason where it
/// does not, and a damaged chunk costs that chunk, never the image.
@Suite struct MetadataTests {
    /// PngSuite's files with ancillary chunks: text, pHYs, sBIT, hIST, tIME, gAMA, cHRM.
    static let ancillaryPrefixes = ["ct", "cd", "cs", "ch", "cm", "g0", "g1", "g2", "ccw"]

    @Test func pngSuiteAncillaryChunksSurviveARoundTrip() throws {
        let names = try Fixtures.validPngSuiteFiles().filter { name in Self.ancillaryPrefixes.contains { name.hasPrefix($0) } }
        #expect(names.count >= 40, "expected PngSuite's ancillary files, found \(names)")
        var carried = 0
        for name in names {
            let source = try Corpus.bytes(name)
            let (_, pixels, metadata) = try PNGDecoder.decodeWithMetadata(source)
            #expect(metadata.warnings.isEmpty, "\(name): \(metadata.warnings)")
            let encoded = try PNGEncoder.encode(pixels, metadata: metadata, time: 1_700_000_000)
            let (_, roundTripped, written) = try PNGDecoder.decodeWithMetadata(encoded.bytes)
            #expect(roundTripped.sameSamples(as: pixels), "\(name): pixels changed")
            // Every chunk the source had is in the output with the same bytes,
            // unless it was dropped with a reason (or is tIME, written anew).
            let dropped = Set(encoded.dropped.map(\.type))
            let expected = metadata.chunks.filter { $0.type != "tIME" && !dropped.contains($0.type) }
            #expect(written.chunks.filter { $0.type != "tIME" } == expected, "\(name)")
            #expect(written.hasTime == metadata.hasTime, "\(name): tIME")
            carried += expected.count
            for drop in encoded.dropped {
                #expect(["hIST", "sBIT", "bKGD", "sPLT"].contains(drop.type), "\(name): unexpected drop \(drop)")
            }
        }
        print("carried \(carried) ancillary chunks through \(names.count) PngSuite files")
    }

    @Test func tIMEStatesTheGivenTime() throws {
        let source = try Corpus.bytes("cm0n0g04.png")
        let (_, pixels, metadata) = try PNGDecoder.decodeWithMetadata(source)
        let encoded = try PNGEncoder.encode(pixels, metadata: metadata, time: 1_700_000_000)
        // 2023-11-14 22:13:20 UTC
        #expect(PNGBytes.data(of: "tIME", in: encoded.bytes) == [[0x07, 0xE7, 11, 14, 22, 13, 20]])
    }

    @Test func selectionKeepsOnlyTheChosenKinds() throws {
        let source = try Corpus.bytes("ctzn0g04.png")  // gAMA, tEXt, zTXt
        let (_, pixels, metadata) = try PNGDecoder.decodeWithMetadata(source)
        let stripped = try PNGEncoder.encode(pixels, metadata: metadata, keep: .strip).bytes
        #expect(Set(PNGBytes.chunks(of: stripped).map(\.type)) == ["IHDR", "gAMA", "IDAT", "IEND"])
        let textOnly = try PNGEncoder.encode(pixels, metadata: metadata, keep: .text).bytes
        #expect(Set(PNGBytes.chunks(of: textOnly).map(\.type)) == ["IHDR", "tEXt", "zTXt", "IDAT", "IEND"])
        #expect(throws: Never.self) { try MetadataSelection.parse("icc,exif,text,phys").get() }
        #expect((try? MetadataSelection.parse("icc,colour").get()) == nil)
        // `all` and `none` stand alone: `none,exif` meant exif and `all,none` all, without a word.
        #expect(try MetadataSelection.parse("none").get() == [] && MetadataSelection.parse("all").get() == .all)
        for list in ["none,exif", "all,none", "icc, all"] {
            guard case .failure(let problem) = MetadataSelection.parse(list) else { Issue.record("\(list) accepted"); continue }
            #expect(problem.description.contains("stands alone"), "\(problem)")
        }
    }

    /// An 8-bit RGB image with an RGB profile, EXIF, pHYs and two private chunks.
    static func taggedImage() throws -> [UInt8] {
        let image = PixelBuffer(width: 4, height: 3, depth: .eight,
                                bytes: (0..<12).flatMap { i -> [UInt8] in [UInt8(i * 20), UInt8(200 - i * 10), 7, 255] })
        var png = try PNGEncoder.encode(image)
        let iccp = Array("Display P3".utf8) + [0, 0] + PNGBytes.zlibStored(PNGBytes.iccHeader(space: "RGB "))
        // Each goes right after IHDR, so they end up in the reverse of this order.
        for chunk in [PNGBytes.chunk("prVt", [1, 2, 3]), PNGBytes.chunk("prVT", [4]),
                      PNGBytes.chunk("pHYs", PNGBytes.bigEndian(2835) + PNGBytes.bigEndian(2835) + [1]),
                      PNGBytes.chunk("eXIf", Array("MM\0*\0\0\0\u{8}\0\0".utf8)),
                      PNGBytes.chunk("iCCP", iccp)] {
            png = PNGBytes.insertAfterHeader(chunk, into: png)
        }
        return png
    }

    @Test func unknownChunksFollowTheSafeToCopyRule() throws {
        let (_, pixels, metadata) = try PNGDecoder.decodeWithMetadata(try Self.taggedImage())
        #expect(metadata.profileColorSpace == "RGB ")
        let output = try PNGEncoder.encode(pixels, metadata: metadata).bytes
        let types = PNGBytes.chunks(of: output).map(\.type)
        #expect(types == ["IHDR", "iCCP", "eXIf", "pHYs", "prVt", "IDAT", "IEND"], "\(types)")
    }

    /// Neutral pixels under an RGB profile stay RGB, tagged: the gray form would cost the profile (a reduction
    /// never costs metadata). Without the profile to keep, they are written gray.
    @Test func neutralPixelsKeepTheirRGBProfile() throws {
        let (_, pixels, metadata) = try PNGDecoder.decodeWithMetadata(try Self.taggedImage())
        var gray = pixels
        for i in stride(from: 0, to: gray.bytes.count, by: 4) { gray.bytes[i + 1] = gray.bytes[i]; gray.bytes[i + 2] = gray.bytes[i] }
        let encoded = try PNGEncoder.encode(gray, metadata: metadata)
        #expect(PNGBytes.data(of: "iCCP", in: encoded.bytes).count == 1)
        #expect(encoded.dropped.isEmpty, "\(encoded.dropped)")
        #expect(PNGBytes.data(of: "IHDR", in: encoded.bytes).first?[9] == 2, "RGB")
        #expect(try PNGDecoder.decode(encoded.bytes) == gray)
        let untagged = try PNGEncoder.encode(gray, metadata: metadata, keep: [])
        #expect(PNGBytes.data(of: "IHDR", in: untagged.bytes).first?[9] == 0, "gray, with no profile to keep")
    }

    @Test(arguments: ["iCCP", "zTXt"])
    func aDamagedCompressedChunkCostsOnlyThatChunk(type: String) throws {
        var png = type == "iCCP" ? try Self.taggedImage() : try Corpus.bytes("ctzn0g04.png")
        let chunk = try #require(PNGBytes.chunks(of: png).first { $0.type == type })
        png[chunk.dataOffset + chunk.length - 2] ^= 0xFF  // the Adler-32 of the zlib stream
        PNGBytes.fixCRC(&png, chunk)
        let (_, pixels, metadata) = try PNGDecoder.decodeWithMetadata(png)
        #expect(metadata.warnings.count == 1)
        #expect(metadata.warnings.first?.hasPrefix("\(type): the compressed") == true, "\(metadata.warnings)")
        #expect(pixels == (try PNGDecoder.decode(png)))
        let output = try PNGEncoder.encode(pixels, metadata: metadata).bytes
        #expect(PNGBytes.data(of: type, in: output).count == PNGBytes.data(of: type, in: png).count - 1)
    }

    @Test func anAncillaryChunkWithABadCRCIsLeftOutWithAWarning() throws {
        var png = try Corpus.bytes("ct1n0g04.png")
        let text = try #require(PNGBytes.chunks(of: png).first { $0.type == "tEXt" })
        png[text.end - 1] ^= 0x01
        let (_, _, metadata) = try PNGDecoder.decodeWithMetadata(png)
        #expect(metadata.warnings.count == 1)
        #expect(metadata.warnings.first?.contains("tEXt") == true, "\(metadata.warnings)")
        #expect(metadata.chunks.filter { $0.type == "tEXt" }.count == PNGBytes.data(of: "tEXt", in: png).count - 1)
    }

    /// Pixels naming palette entries past PLTE (an error by the PNG spec) are drawn opaque black, as libpng, vips and
    /// browsers draw them, with a warning (ImageMagick warns too): before, kiln drew them without a word, libpng counting
    /// no such index at 8 bits. Packed 2-bit and Adam7-interlaced rows alike; a palette every index is in says nothing.
    @Test func pixelsPastThePaletteAreDrawnBlackWithAWarning() throws {
        let plte = PNGBytes.chunk("PLTE", [255, 0, 0, 0, 255, 0])
        func png(depth: UInt8, interlace: UInt8 = 0, rows: [[UInt8]]) -> [UInt8] {
            PNGBytes.signature + PNGBytes.ihdr(width: 4, height: 1, bitDepth: depth, colorType: 3, interlace: interlace) + plte
                + PNGBytes.chunk("IDAT", PNGBytes.zlibStored(rows.flatMap { [0] + $0 })) + PNGBytes.chunk("IEND", [])
        }
        let drawn: [UInt8] = [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]
        // Adam7 on a 4×1 image: pass 1 holds x 0, pass 4 x 2, pass 6 x 1 and 3.
        let cases: [(String, [UInt8])] = [
            ("8-bit", png(depth: 8, rows: [[0, 1, 2, 3]])),
            ("2-bit", png(depth: 2, rows: [[0b0001_1011]])),
            ("interlaced", png(depth: 8, interlace: 1, rows: [[0], [2], [1, 3]])),
        ]
        for (name, bytes) in cases {
            let (_, pixels, metadata) = try PNGDecoder.decodeWithMetadata(bytes)
            #expect(pixels.bytes == drawn, "\(name)")
            #expect(metadata.warnings.count == 1 && metadata.warnings[0].contains("palette entry 3, past the palette's 2 colors"),
                    "\(name): \(metadata.warnings)")
        }
        // The largest index first in its row, at 1, 2 and 4 bits and interlaced at 2: libpng's own check (which
        // sees packed rows, not the last pixel's) failed these ("Read palette index exceeding num_palette").
        let black: [UInt8] = [0, 0, 0, 255], red: [UInt8] = [255, 0, 0, 255]
        let first: [(String, [UInt8], Int)] = [
            ("1-bit", PNGBytes.signature + PNGBytes.ihdr(width: 4, height: 1, bitDepth: 1, colorType: 3)
                + PNGBytes.chunk("PLTE", [255, 0, 0]) + PNGBytes.chunk("IDAT", PNGBytes.zlibStored([0, 0b1000_0000]))
                + PNGBytes.chunk("IEND", []), 1),
            ("2-bit", png(depth: 2, rows: [[0b1100_0000]]), 3),
            ("4-bit", png(depth: 4, rows: [[0xF0, 0x00]]), 15),
            ("interlaced 2-bit", png(depth: 2, interlace: 1, rows: [[0b1100_0000], [0], [0]]), 3),
        ]
        for (name, bytes, largest) in first {
            let (_, pixels, metadata) = try PNGDecoder.decodeWithMetadata(bytes)
            let colors = name == "1-bit" ? "1 color" : "2 colors"
            #expect(pixels.bytes == black + red + red + red, "\(name)")
            #expect(metadata.warnings == ["pixels name palette entry \(largest), past the palette's \(colors): such pixels are drawn opaque black"],
                    "\(name): \(metadata.warnings)")
        }
        let (_, pixels, metadata) = try PNGDecoder.decodeWithMetadata(png(depth: 8, rows: [[0, 1, 1, 0]]))
        #expect(pixels.bytes == Array(drawn[0..<8] + drawn[4..<8] + drawn[0..<4]))
        #expect(metadata.warnings.isEmpty, "\(metadata.warnings)")
    }

    /// Chunks past the metadata limit are said once: before, 200,000 tEXt chunks gave the same line 17 times,
    /// then an 18th cut short, until the notes' buffer was full.
    @Test func chunksPastTheLimitAreSaidOnce() throws {
        let text = (0..<3000).flatMap { PNGBytes.chunk("tEXt", Array("Comment\u{0}\($0)".utf8)) }
        let png = PNGBytes.stored(width: 1, colorType: 0, rows: [[0]], before: text)
        let (_, _, metadata) = try PNGDecoder.decodeWithMetadata(png)
        let said = metadata.warnings.filter { $0.contains("over the limit") }
        #expect(said.count == 1, "\(said.count): \(said.prefix(3))")
        #expect(metadata.chunks.count { $0.type == "tEXt" } == 1000)
    }
}
