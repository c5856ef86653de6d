import Compute
import Testing

@Suite("Copies on several threads (ParallelLoop.copy)")
struct ParallelCopyTests {
    @Test("every byte arrives once and nothing beside the destination is written, whatever the size and the destination's alignment",
          arguments: [0, 1, (1 << 20) - 1, 3 << 20 | 17, (9 << 20) + 5, 2 << 20])
    func copiesExactly(_ bytes: Int) {
        let guardBytes = 64
        for shift in [0, 1, 4096 + 3, (2 << 20) - 7] {
            let source = (0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
            // The destination sits `shift` bytes into a buffer that is 2 MiB-aligned where the
            // allocator gives huge pages, so the pieces' page boundaries fall mid-copy.
            var destination = [UInt8](repeating: 0xA5, count: shift + bytes + guardBytes)
            source.withUnsafeBytes { from in
                destination.withUnsafeMutableBytes { to in
                    ParallelLoop.copy(bytes, from: from.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, to: to.baseAddress! + shift)
                }
            }
            #expect(destination[shift..<(shift + bytes)].elementsEqual(source), "\(bytes) bytes at +\(shift): copy differs")
            #expect(destination[..<shift].allSatisfy { $0 == 0xA5 }, "\(bytes) bytes at +\(shift): written before the destination")
            #expect(destination[(shift + bytes)...].allSatisfy { $0 == 0xA5 }, "\(bytes) bytes at +\(shift): written past the destination")
        }
    }
}
