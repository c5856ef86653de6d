import Foundation
import KilnTestSupport
import PNGCodec
import Testing

/// An APNG input (issue 24): Kiln exports its default image, a still PNG
/// without the animation's chunks, and says once per file that the animation
/// was dropped, never silently.
@Suite struct AnimatedInputTests {
    /// 8×8 RGB rows: a gradient, or its negative for the second frame.
    private func rows(negative: Bool) -> [[UInt8]] {
        (0..<8).map { y in
            (0..<8).flatMap { x in [UInt8(x * 30), UInt8(y * 30), 90].map { negative ? 255 - $0 : $0 } }
        }
    }

    /// fcTL's data (APNG specification): sequence number, 8×8 at (0, 0), a
    /// 1/10 s delay, no dispose, source blend.
    private func frameControl(sequence: UInt32) -> [UInt8] {
        [sequence, 8, 8, 0, 0].flatMap(PNGBytes.bigEndian) + [0, 1, 0, 10, 0, 0]
    }

    /// A two-frame APNG: IHDR, acTL, fcTL, IDAT (the default image, also frame
    /// 1), fcTL, fdAT (frame 2), IEND.
    private func animation() -> [UInt8] {
        let still = PNGBytes.stored(width: 8, colorType: 2, rows: rows(negative: false))
        let idat = PNGBytes.chunks(of: still).first { $0.type == "IDAT" }!
        let second: [UInt8] = rows(negative: true).flatMap { [UInt8(0)] + $0 }
        return PNGBytes.signature + PNGBytes.ihdr(width: 8, height: 8, colorType: 2)
            + PNGBytes.chunk("acTL", PNGBytes.bigEndian(2) + PNGBytes.bigEndian(0))
            + PNGBytes.chunk("fcTL", frameControl(sequence: 0))
            + Array(still[idat.offset..<idat.end])
            + PNGBytes.chunk("fcTL", frameControl(sequence: 1))
            + PNGBytes.chunk("fdAT", PNGBytes.bigEndian(2) + PNGBytes.zlibStored(second))
            + PNGBytes.chunk("IEND", [])
    }

    @Test func anAPNGExportsItsDefaultImageWithOneWarning() throws {
        let dir = try TemporaryDirectory()
        try Data(animation()).write(to: URL(fileURLWithPath: dir.join("moving.png")))
        try Data(PNGBytes.stored(width: 8, colorType: 2, rows: rows(negative: false)))
            .write(to: URL(fileURLWithPath: dir.join("still.png")))
        let r = try kiln(["export", dir.join("moving.png"), dir.join("still.png"), "-o", dir.join("out"), "--device", "cpu",
                          "--progress", "json"], environment: ["SOURCE_DATE_EPOCH": "1700000000"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try pngcheckFailures([dir.join("out/moving.png")]) == [])
        let output = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("out/moving.png"))))
        let types = PNGBytes.chunks(of: output).map(\.type)
        #expect(!types.contains("acTL") && !types.contains("fcTL") && !types.contains("fdAT"), "\(types)")
        // The default image, as the same pixels in a still PNG give.
        let still = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.join("out/still.png"))))
        #expect(output == still)
        let warnings = Events(r.stdoutLines).named("warning").compactMap { $0["message"] as? String }
        #expect(warnings.count == 1 && warnings[0].contains("moving.png") && warnings[0].contains("animation"), "\(warnings)")
    }

    /// An APNG of one frame says "1 frame" (it said "1 frames").
    @Test func anAPNGOfOneFrameSaysSo() throws {
        let dir = try TemporaryDirectory()
        let still = PNGBytes.stored(width: 8, colorType: 2, rows: rows(negative: false))
        let idat = PNGBytes.chunks(of: still).first { $0.type == "IDAT" }!
        let single = PNGBytes.signature + PNGBytes.ihdr(width: 8, height: 8, colorType: 2)
            + PNGBytes.chunk("acTL", PNGBytes.bigEndian(1) + PNGBytes.bigEndian(0))
            + PNGBytes.chunk("fcTL", frameControl(sequence: 0)) + Array(still[idat.offset..<idat.end]) + PNGBytes.chunk("IEND", [])
        try Data(single).write(to: URL(fileURLWithPath: dir.join("single.png")))
        let r = try kiln(["export", dir.join("single.png"), "-o", dir.join("out"), "--progress", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = Events(r.stdoutLines).named("warning").compactMap { $0["message"] as? String }
        #expect(warnings.count == 1 && warnings[0].contains("acTL: the animation (APNG, 1 frame) is dropped"), "\(warnings)")
    }

    /// Before: `--in-place` wrote an APNG's default image over it, its frames lost for good, with a warning and exit
    /// 0 (an animated WebP is refused). In place the file is the only copy: it fails, left as it is.
    @Test func anAPNGInPlaceFailsLeftAsItIs() throws {
        let dir = try TemporaryDirectory()
        let moving = animation()
        try Data(moving).write(to: URL(fileURLWithPath: dir.join("moving.png")))
        try Data(PNGBytes.stored(width: 8, colorType: 2, rows: rows(negative: false)))
            .write(to: URL(fileURLWithPath: dir.join("still.png")))
        let r = try startKiln(["export", "--in-place", "moving.png", "still.png", "--brightness", "0.1", "--device", "cpu",
                               "--progress", "json"], directory: dir.path).wait()
        #expect(r.status == 1, "\(r.stderr)")
        let failed = Events(r.stdoutLines).files("failed").compactMap { $0["error"] as? String }
        #expect(failed.count == 1 && failed[0].contains("an animated PNG (APNG)") && failed[0].contains("lose its frames"), "\(failed)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.join("moving.png"))) == Data(moving), "left as it is")
        #expect(Events(r.stdoutLines).files("written").count == 1, "the still image is done")
    }
}
