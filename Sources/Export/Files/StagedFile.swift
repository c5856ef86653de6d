import Glibc
import CZlib
import ImageCore

/// An encoder's output going straight into a staged output file (SPEC §8: the
/// encoder writes rows to the staged file as they are compressed), counting
/// its bytes and their CRC-32 for the journal as they pass.
final class StagedFile: EncodedOutput {
    private let descriptor: Int32
    /// Bytes written so far.
    private(set) var size = 0
    /// CRC-32 of the bytes written so far (zlib's).
    private(set) var crc32: UInt32 = 0

    /// An output into the open, empty file `staged`.
    init(_ staged: StagedOutput) {
        descriptor = staged.descriptor
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        // Nothing to add (zlib's crc32_z of no buffer is 0: it would restart the checksum).
        guard !bytes.isEmpty else { return }
        var offset = 0
        while offset < bytes.count {
            let n = pwrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset, off_t(size + offset))
            if n < 0 {
                if errno == EINTR { continue }
                throw OutputError.system("cannot write", errno)
            }
            offset += n
        }
        crc32 = UInt32(crc32_z(UInt(crc32), bytes.baseAddress?.assumingMemoryBound(to: Bytef.self), bytes.count))
        size += bytes.count
    }

    /// Empties the file, for an image that starts over (on the CPU, after a device failure).
    func restart() throws {
        guard ftruncate(descriptor, 0) == 0 else { throw OutputError.system("cannot truncate", errno) }
        size = 0
        crc32 = 0
    }
}
