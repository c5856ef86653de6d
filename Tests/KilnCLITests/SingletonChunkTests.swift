import Foundation
import KilnTestSupport
import PNGCodec
import Testing

/// Chunks the PNG specification allows once (issue 24): an input holding two
/// keeps the first (libpng's rule), says so in a warning naming the file, and
/// its output holds one, which `pngcheck` accepts.
@Suite struct SingletonChunkTests {
    /// Two different values of each singleton chunk, for an 8×8 RGB image
    /// (hIST: for a palette image; it describes a palette).
    static let values: [String: ([UInt8], [UInt8])] = [
        "cHRM": (chromaticities(31270, 32900), chromaticities(31000, 33000)),
        "gAMA": (PNGBytes.bigEndian(45455), PNGBytes.bigEndian(100_000)),
        "iCCP": (iccp("First"), iccp("Second")),
        "sBIT": ([8, 8, 8], [5, 6, 5]),
        "sRGB": ([0], [1]),
        "bKGD": ([0, 10, 0, 20, 0, 30], [0, 200, 0, 100, 0, 50]),
        "hIST": ([0, 1, 0, 2], [0, 9, 0, 9]),
        "pHYs": (PNGBytes.bigEndian(2835) + PNGBytes.bigEndian(2835) + [1], PNGBytes.bigEndian(100) + PNGBytes.bigEndian(200) + [0]),
        "tIME": ([0x07, 0xE8, 1, 2, 3, 4, 5], [0x07, 0xE9, 6, 7, 8, 9, 10]),
        // Two TIFF streams with an empty first IFD, big- and little-endian (no orientation).
        "eXIf": ([0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0], [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        // A colour key: the first makes pixel (0, 0)'s colour transparent, the second another.
        "tRNS": ([0, 0, 0, 0, 0, 0], [0, 255, 0, 255, 0, 255]),
    ]

    /// cHRM's data: the white point given, the sRGB primaries.
    private static func chromaticities(_ x: UInt32, _ y: UInt32) -> [UInt8] {
        [x, y, 64000, 33000, 30000, 60000, 15000, 6000].flatMap(PNGBytes.bigEndian)
    }

    /// iCCP's data: `name`, method 0, an RGB profile header in stored deflate blocks.
    private static func iccp(_ name: String) -> [UInt8] {
        Array(name.utf8) + [0, 0] + PNGBytes.zlibStored(PNGBytes.iccHeader(space: "RGB "))
    }

    /// An 8×8 image with `chunks` (type, data) before its image data: RGB, or
    /// a 4-colour palette image when one is hIST (which needs a palette).
    static func image(with chunks: [(String, [UInt8])]) -> [UInt8] {
        let palette = chunks.contains { $0.0 == "hIST" }
        let rows: [[UInt8]] = (0..<8).map { (y: Int) -> [UInt8] in
            (0..<8).flatMap { (x: Int) -> [UInt8] in
                palette ? [UInt8((x + y) % 4)] : [UInt8(x * 30), UInt8(y * 30), UInt8((x ^ y) * 20)]
            }
        }
        let plte = palette ? PNGBytes.chunk("PLTE", [0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]) : []
        return PNGBytes.stored(width: 8, colorType: palette ? 3 : 2, rows: rows,
                               before: plte + chunks.flatMap { PNGBytes.chunk($0.0, $0.1) })
    }

    private static func read(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    @Test(arguments: ["cHRM", "gAMA", "iCCP", "sBIT", "sRGB", "bKGD", "hIST", "pHYs", "tIME", "eXIf", "tRNS"])
    func aRepeatedChunkIsWrittenOnceWithTheFirstValueAndAWarning(type: String) throws {
        let dir = try TemporaryDirectory()
        let (first, second) = try #require(Self.values[type])
        try Data(Self.image(with: [(type, first), (type, second)])).write(to: URL(fileURLWithPath: dir.join("twice.png")))
        try Data(Self.image(with: [(type, first)])).write(to: URL(fileURLWithPath: dir.join("once.png")))
        let r = try kiln(["export", dir.join("twice.png"), dir.join("once.png"), "-o", dir.join("out"), "--device", "cpu",
                          "--progress", "json"], environment: ["SOURCE_DATE_EPOCH": "1700000000"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try pngcheckFailures([dir.join("out/twice.png")]) == [])
        let output = try Self.read(dir.join("out/twice.png"))
        let kept = PNGBytes.data(of: type, in: output)
        #expect(kept.count <= 1, "\(type) \(kept.count) times")
        // tIME and tRNS are written anew (when it was made; from the pixels), hIST never (an output's palette is its own).
        if !["tIME", "tRNS", "hIST"].contains(type) { #expect(kept == [first]) }
        // The first value holds: the output is the one-chunk input's output.
        #expect(PNGChunks.sameWork(output, try Self.read(dir.join("out/once.png")), tolerance: 0))
        let warnings = Events(r.stdoutLines).named("warning").compactMap { $0["message"] as? String }
        #expect(warnings.count == 1 && warnings[0].contains("twice.png") && warnings[0].contains(type), "\(warnings)")
    }

    @Test func aLateSingletonIsMovedUpOrLeftOutAsReadersTreatIt() throws {
        let dir = try TemporaryDirectory()
        let exif = try #require(Self.values["eXIf"]).0
        // gAMA and pHYs after the image data, where libpng ignores them; eXIf, which it reads anywhere.
        let still: [UInt8] = Self.image(with: [])
        let late: [UInt8] = Array(still.dropLast(12)) + PNGBytes.chunk("gAMA", PNGBytes.bigEndian(45455))
            + PNGBytes.chunk("pHYs", PNGBytes.bigEndian(2835) + PNGBytes.bigEndian(2835) + [1])
            + PNGBytes.chunk("eXIf", exif) + PNGBytes.chunk("IEND", [])
        try Data(late).write(to: URL(fileURLWithPath: dir.join("late.png")))
        let r = try kiln(["export", dir.join("late.png"), "-o", dir.join("out"), "--device", "cpu", "--progress", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try pngcheckFailures([dir.join("out/late.png")]) == [])
        let types = PNGBytes.chunks(of: try Self.read(dir.join("out/late.png"))).map(\.type)
        #expect(types == ["IHDR", "eXIf", "IDAT", "IEND"], "\(types)")
        let warnings = Events(r.stdoutLines).named("warning").compactMap { $0["message"] as? String }
        #expect(warnings.count == 2 && warnings.allSatisfy { $0.contains("late.png") && $0.contains("out of place") }, "\(warnings)")
    }

    /// The singleton chunk types `png` holds, in stream order, each once.
    private static func singletons(in png: [UInt8]) -> [String] {
        var types: [String] = []
        for chunk in PNGBytes.chunks(of: png) where values[chunk.type] != nil && !types.contains(chunk.type) {
            types.append(chunk.type)
        }
        return types
    }

    /// `png` with a second `type` chunk right after its first, holding another value.
    private static func duplicating(_ type: String, in png: [UInt8]) throws -> [UInt8] {
        let chunk = try #require(PNGBytes.chunks(of: png).first { $0.type == type })
        var data = Array(png[chunk.dataOffset..<(chunk.dataOffset + chunk.length)])
        switch type {
        case "iCCP": data.insert(UInt8(ascii: "X"), at: 0)  // another name; the profile still inflates
        case "tIME": data[6] = (data[6] + 1) % 60           // a second later
        default: data[data.count - 1] ^= 1
        }
        var out = png
        out.insert(contentsOf: PNGBytes.chunk(type, data), at: chunk.end)
        return out
    }

    @Test func pngSuiteWithEverySingletonRepeatedKeepsTheFirst() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.join("in"), withIntermediateDirectories: true)
        // Name of each variant → (its source, the repeated type).
        var variants: [String: (source: String, type: String)] = [:]
        var sources: Set<String> = []
        for name in try Fixtures.validPngSuiteFiles() {
            let png = try Self.read(try Fixtures.pngSuitePath(name))
            let base = String(name.dropLast(4))
            for type in Self.singletons(in: png) {
                let variant = "\(base)-\(type).png"
                try Data(try Self.duplicating(type, in: png)).write(to: URL(fileURLWithPath: dir.join("in/" + variant)))
                variants[variant] = (name, type)
                if sources.insert(name).inserted {
                    try Data(png).write(to: URL(fileURLWithPath: dir.join("in/" + name)))
                }
            }
        }
        // The synthetic inputs cover what PngSuite lacks (eXIf, a colour-key tRNS repeated, …).
        for (type, pair) in Self.values {
            let variant = "synthetic-\(type).png"
            try Data(Self.image(with: [(type, pair.0), (type, pair.1)])).write(to: URL(fileURLWithPath: dir.join("in/" + variant)))
            try Data(Self.image(with: [(type, pair.0)])).write(to: URL(fileURLWithPath: dir.join("in/synthetic-\(type)-once.png")))
            variants[variant] = ("synthetic-\(type)-once.png", type)
        }
        let covered = Set(variants.values.map(\.type))
        #expect(covered == Set(Self.values.keys), "covered: \(covered.sorted())")
        let r = try kiln(["export", dir.join("in"), "-o", dir.join("out"), "--device", "cpu", "--progress", "json"],
                         environment: ["SOURCE_DATE_EPOCH": "1700000000"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try pngcheckFailures(Paths.pngs(in: dir.join("out")).map { dir.join("out/" + $0) }) == [])
        let warnings = Events(r.stdoutLines).named("warning").compactMap { $0["message"] as? String }
        for (variant, (source, type)) in variants.sorted(by: { $0.key < $1.key }) {
            let output = try Self.read(dir.join("out/" + variant))
            let input = try Self.read(dir.join("in/" + variant))
            #expect(PNGBytes.data(of: type, in: output).count <= 1, "\(variant)")
            let kept = PNGBytes.data(of: type, in: output)
            if !["tIME", "tRNS"].contains(type), let value = kept.first {
                #expect(value == PNGBytes.data(of: type, in: input).first, "\(variant): not the first value")
            }
            #expect(PNGChunks.sameWork(output, try Self.read(dir.join("out/" + source)), tolerance: 0), "\(variant) differs from \(source)'s output")
            #expect(warnings.contains { $0.contains(variant) && $0.contains(type) }, "\(variant): no warning")
        }
        print("\(variants.count) inputs with a repeated singleton chunk (\(covered.count) types) exported to valid PNGs")
    }
}
