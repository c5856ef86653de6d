import Color
import Foundation
import Render

/// A file a job's plan reads beside its inputs: an ICC profile it converts with
/// (`--profile`, `--input-profile`) or a watermark it draws (`--watermark`), as
/// the plan keeps it (``ExportPlan/files``): the path and the content's size and CRC-32.
///
/// The operations name such a file by its path only. Kept in the plan, its
/// fingerprint is in every output's provenance digest, so an output made with
/// another watermark or profile by the same name is made otherwise, not the same
/// work skipped (before, a changed watermark's outputs were kept, stale, exit 0).
/// And `kiln resume` checks each file is still there and holds the same bytes,
/// and refuses otherwise, before anything is written: the rest of a job is made
/// as its start was. (Before, a deleted profile let the resumed job write the
/// remaining images without conversion or profile; a changed watermark put
/// another mark on the rest.)
///
/// CRC-32 (the journal's checksum, ``CRC32``) and the size, not a cryptographic
/// hash: the check is against a file replaced or edited by mistake, not against
/// a crafted collision, and it needs no library kiln does not already link.
/// A journal of kiln before 2026-11-25 has no fingerprints; its files are not checked (one of 2026-11-25 to
/// 2026-11-27 has its profiles' in ``JobRecord/profiles``).
public struct FileFingerprint: Codable, Sendable, Equatable {
    /// The option that named the file: `--profile`, `--input-profile` or `--watermark`.
    public var option: String
    /// The path as given (relative to the job's working directory).
    public var path: String
    /// The file's size in bytes.
    public var size: Int
    /// The CRC-32 of the file's bytes.
    public var crc32: UInt32

    /// The fingerprints of the files `plan` reads: its profile files (none for srgb and p3), then its watermarks.
    /// - Throws: ``FileFingerprintError/gone(option:path:reason:)`` for a file that cannot be read.
    public static func of(_ plan: ExportPlan) throws(FileFingerprintError) -> [FileFingerprint] {
        var named: [(option: String, path: String)] = []
        if let conversion = plan.color {
            for (option, profile) in [("--profile", conversion.target), ("--input-profile", conversion.inputProfile)] {
                if case .file(let path) = profile { named.append((option, path)) }
            }
        }
        for case .watermark(let watermark) in plan.operations { named.append(("--watermark", watermark.file)) }
        var found: [FileFingerprint] = []
        for (option, path) in named {
            let bytes = try contents(option: option, path: path)
            found.append(FileFingerprint(option: option, path: path, size: bytes.count, crc32: CRC32.checksum(bytes)))
        }
        return found
    }

    /// Checks the file still holds what was fingerprinted.
    /// - Throws: ``FileFingerprintError`` saying the file is gone or changed.
    public func check() throws(FileFingerprintError) {
        let bytes = try Self.contents(option: option, path: path)
        guard bytes.count == size, CRC32.checksum(bytes) == crc32 else {
            throw .changed(option: option, path: path)
        }
    }

    private static func contents(option: String, path: String) throws(FileFingerprintError) -> Data {
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

/// Why a file a job's plan reads cannot be used as it was when the job started.
public enum FileFingerprintError: Error, Equatable, CustomStringConvertible {
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
