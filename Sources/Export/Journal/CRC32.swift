import Foundation
import CZlib

/// CRC-32 (ISO 3309, the zlib/PNG polynomial) of finished outputs, recorded in
/// the journal so `kiln resume` can verify an output is the one it wrote.
/// zlib's (`crc32_z`: slicing by eight, several bytes a cycle), not a byte loop.
package enum CRC32 {
    /// The checksum of `bytes` (an array, `Data`, …: any contiguous bytes).
    package static func checksum<Bytes: ContiguousBytes>(_ bytes: Bytes) -> UInt32 {
        bytes.withUnsafeBytes { raw in
            UInt32(crc32_z(0, raw.baseAddress?.assumingMemoryBound(to: Bytef.self), raw.count))
        }
    }
}
