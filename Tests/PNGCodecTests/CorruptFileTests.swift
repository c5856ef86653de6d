import PNGCodec
import Testing

/// SPEC §7: the 14 corrupt PngSuite files are rejected, each with a specific reason.
@Suite struct CorruptFileTests {
    @Test func everyCorruptFileIsRejected() throws {
        let files = try Corpus.corruptFiles()
        #expect(files.count == 14)
        for name in files {
            do {
                _ = try PNGDecoder.decode(contentsOf: Corpus.path(name))
                Issue.record("\(name) decoded but is corrupt")
            } catch let error as PNGError {
                print("\(name): \(error)")
            }
        }
    }
}
