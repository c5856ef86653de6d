import Color
import Foundation

/// An ICC profile file a job converts with (`--profile`, `--input-profile`),
/// as the job record keeps it: the path and the content's size and CRC-32.
///
/// The record keeps only the path of such a file, so `kiln resume` would read
/// whatever is there then. Resume checks each file is still there and holds
/// the same bytes, and refuses otherwise, before anything is written: the rest
/// of a job is converted as its start was. (Before, a deleted profile let the
/// resumed job write the remaining images without conversion or profile.)
///
/// CRC-32 (the journal's checksum, ``CRC32``) and the size, not a cryptographic
/// hash: the check is against a file replaced or edited by mistake, not against
/// a crafted collision, and it needs no library kiln does not already link.
/// A journal of an older kiln has no fingerprints; its profiles are not checked.
public struct ProfileFingerprint: Codable, Sendable, Equatable {
    /// The option that named the file: `--profile` or `--input-profile`.
    public var option: String
    /// The path as given (relative to the job's working directory).
    public var path: String
    /// The file's size in bytes.
    public var size: Int
    /// The CRC-32 of the file's bytes.
    public var crc32: UInt32

    /// The fingerprints of the profile files `conversion` reads (none for srgb and p3).
    /// - Throws: ``ProfileFingerprintError/gone(option:path:reason:)`` for a file that cannot be read.
    public static func of(_ conversion: ColorConversion?) throws(ProfileFingerprintError) -> [ProfileFingerprint] {
        guard let conversion else { return [] }
        var found: [ProfileFingerprint] = []
        for (option, profile) in [("--profile", conversion.target), ("--input-profile", conversion.inputProfile)] {
            guard case .file(let path) = profile else { continue }
            let bytes = try contents(option: option, path: path)
            found.append(ProfileFingerprint(option: option, path: path, size: bytes.count, crc32: CRC32.checksum(bytes)))
        }
        return found
    }

    /// Checks the file still holds what was fingerprinted.
    /// - Throws: ``ProfileFingerprintError`` saying the file is gone or changed.
    public func check() throws(ProfileFingerprintError) {
        let bytes = try Self.contents(option: option, path: path)
        guard bytes.count == size, CRC32.checksum(bytes) == crc32 else {
            throw .changed(option: option, path: path)
        }
    }

    private static func contents(option: String, path: String) throws(ProfileFingerprintError) -> Data {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .gone(option: option, path: path, reason: String(cString: strerror(errno)))
        }
        defer { try? handle.close() }
        do {
            return try handle.readToEnd() ?? Data()
        } catch {
            throw .gone(option: option, path: path, reason: "\(error)")
        }
    }
}

/// Why a job's profile file cannot be used as it was when the job started.
public enum ProfileFingerprintError: Error, Equatable, CustomStringConvertible {
    /// The file cannot be read (removed, moved, no permission).
    case gone(option: String, path: String, reason: String)
    /// The file holds other bytes than when the job started.
    case changed(option: String, path: String)

    public var description: String {
        switch self {
        case .gone(let option, let path, let reason):
            return "the \(option) file \(path) cannot be read: \(reason)"
        case .changed(let option, let path):
            return "the \(option) file \(path) has changed since the job started (its size or CRC-32 differs)"
        }
    }
}
