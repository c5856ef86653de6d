import Foundation
import KilnTestSupport
import Testing

/// An output folder named by one character, relative and yet to be made
/// (`-o x`), is made and written like any other. (Found while working on
/// issue 24: kiln crashed, a trap in Foundation's `deletingLastPathComponent`
/// while it looked for the folder's nearest existing parent.)
@Suite struct ShortOutputPathTests {
    @Test(arguments: ["x", "x/", "x/y"])
    func oneCharacterRelativeOutputIsMade(output: String) throws {
        let dir = try TemporaryDirectory()
        let r = try startKiln(["export", Paths.sampleData + "/rgb8.png", "-o", output, "--progress", "none"],
                              directory: dir.path).wait()
        #expect(r.status == 0, "\(r.stderr.prefix(300))")
        #expect(Paths.pngs(in: dir.join(output)) == ["rgb8.png"])
    }
}
