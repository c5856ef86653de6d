import Foundation

/// A recorded job is untrusted input: `job.json` may have been copied or moved
/// with its folder, edited by hand, or crafted. Before `kiln resume` (or a
/// shard's retry) uses one, ``placed(in:shard:)`` checks every field a job
/// acts on and places it in the folder named on the command line, so that the
/// job writes there and nowhere else.
///
/// Rejected design: refusing a folder whose recorded `outputDirectory` is not
/// the folder named now. A copied or moved output folder (`cp -a out out2`,
/// `mv out out2`) is a complete, consistent job: its finished outputs are
/// verified by size and CRC-32 where they now are, and the rest is exported
/// there. Refusing it would make a user edit JSON; following the record wrote
/// into (and deleted the journal of) the original folder.
extension JobRecord {
    /// The journal format this kiln reads and writes.
    public static let currentVersion = 1

    /// This record, checked, with its output directory set to `directory` (the
    /// folder the user named; `kiln resume` passes it as an absolute path, as
    /// the job then runs from the recorded working directory, where relative
    /// inputs and watermarks were given). The record's own `outputDirectory` is never used.
    ///
    /// - Throws: ``JournalError/unreadable(_:reason:)`` naming the field, when
    ///   the record could make the job read or write outside what it was asked:
    ///   an output that is absolute, climbs out with `..`, or names the journal;
    ///   an in-place job whose journal is no longer beside its inputs; a path
    ///   with a NUL; a record of another shard or format version.
    public func placed(in directory: String, shard: ShardSpec?) throws(JournalError) -> JobRecord {
        let place = shard.map { ShardLayout.directory(of: $0, in: directory) + "/job.json" } ?? directory + "/.kiln/job.json"
        func refuse(_ reason: String) -> JournalError { .unreadable(place, reason: reason) }
        guard version == Self.currentVersion else {
            throw refuse("version \(version) is not the journal format of this kiln (\(Self.currentVersion))")
        }
        guard !id.isEmpty, id.count <= 64, id.utf8.allSatisfy(Self.isIDByte) else {
            throw refuse("id must be 1 to 64 letters, digits, '-', '_' or '.'")
        }
        guard workingDirectory.hasPrefix("/"), Self.isPlain(workingDirectory) else {
            throw refuse("workingDirectory must be an absolute path without a NUL")
        }
        guard options.jobs >= 1 else { throw refuse("options.jobs must be at least 1, not \(options.jobs)") }
        guard options.maxPixels >= 1 else { throw refuse("options.maxPixels must be at least 1") }
        guard !items.isEmpty else { throw refuse("items is empty") }
        guard self.shard?.spec == shard else {
            throw refuse("it records " + (self.shard.map { "shard \($0.spec)" } ?? "a job that is not sharded")
                         + (shard.map { ", not shard \($0)" } ?? ""))
        }
        if let recorded = self.shard {
            guard recorded.shares.count == recorded.spec.count else {
                throw refuse("shard.shares must list \(recorded.spec.count) shares")
            }
        }
        var placed = self
        placed.options.outputDirectory = directory
        for index in items.indices {
            let item = items[index]
            guard Self.isPlain(item.input), !item.input.isEmpty else {
                throw refuse("items[\(index)].input must be a path without a NUL")
            }
            if options.inPlace {
                // In place, an output is its input and nothing else.
                guard item.output == item.input else {
                    throw refuse("items[\(index)].output of an in-place job must be its input")
                }
            } else if let why = Self.escapes(item.output) {
                throw refuse("items[\(index)].output \(why)")
            }
        }
        if options.inPlace {
            // The journal of an in-place job sits where it was started: one copied or
            // moved elsewhere would still replace the inputs beside the original.
            let recorded = resolve(options.outputDirectory)
            guard let here = FileIdentity(path: directory), FileIdentity(path: recorded) == here else {
                throw refuse("it is the journal of an in-place job started in \(recorded), and was copied or moved "
                             + "here; resume it there (`kiln resume \(recorded)`)")
            }
        }
        return placed
    }

    /// `path` resolved against the recorded working directory when it is relative.
    private func resolve(_ path: String) -> String {
        path.hasPrefix("/") ? path : (workingDirectory as NSString).appendingPathComponent(path)
    }

    /// Why an output path would leave the output directory (or write into its
    /// journal), or nil when it stays inside: it must be relative, and none of
    /// its components empty, `.`, `..`, or (first) `.kiln`.
    static func escapes(_ output: String) -> String? {
        guard isPlain(output), !output.isEmpty else { return "must be a path without a NUL" }
        guard !output.hasPrefix("/") else { return "is absolute (\(output)); outputs stay inside the output directory" }
        let components = output.split(separator: "/", omittingEmptySubsequences: false)
        if components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) {
            return "(\(output)) has an empty, '.' or '..' component; outputs stay inside the output directory"
        }
        if components.first == ".kiln" { return "(\(output)) is inside the journal folder .kiln" }
        return nil
    }

    /// Whether `path` holds no NUL, which would cut it short where the system reads it. Other control characters
    /// are a name's own (`export -0` and the command line take a newline in one): refusing them here refused the
    /// resume of a job its export had started.
    private static func isPlain(_ path: String) -> Bool {
        !path.utf8.contains(0)
    }

    private static func isIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."): return true
        default: return false
        }
    }
}
