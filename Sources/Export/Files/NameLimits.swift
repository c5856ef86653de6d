import Foundation

/// The limits the output folder's file system sets on names: NAME_MAX bytes a
/// name, PATH_MAX bytes a path, checked for every output when the job is
/// planned, before any image is decoded.
///
/// An output name too long for the file system (an input name near the limit
/// given `.png`, or a deep mirrored path) used to be found only when the
/// output was put in place, after the image was decoded, rendered and encoded,
/// and a job with no other input left an empty folder. Here such an item is a
/// failure of its own, known before it runs (``ExportItem/problem``), as two
/// inputs of one output are; ``ExportCommand`` refuses a job none of whose
/// outputs can be written as a usage error (exit 64) with nothing created.
/// (Chosen over always refusing the job: one unusable name in a batch of
/// thousands should not stop the others, as one corrupt image does not.)
///
/// The limits are the file system's own (`pathconf` of the output folder, or
/// of its nearest existing parent when it is yet to be made); 255 and 4096,
/// Linux's values, where it does not say. The path checked is the output's path
/// under the output folder: kiln reaches outputs through the folder it holds,
/// never by a longer path.
public struct NameLimits: Sendable, Equatable {
    /// The most bytes of one name.
    public let nameMax: Int
    /// The most bytes of a path, its terminating NUL included.
    public let pathMax: Int

    /// The limits of the file system that holds (or will hold) `outputDirectory`.
    public init(outputDirectory: String) {
        let folder = FolderAncestry.nearestExisting(outputDirectory) ?? "."
        nameMax = Self.limit(folder, Int32(_PC_NAME_MAX), otherwise: 255)
        pathMax = Self.limit(folder, Int32(_PC_PATH_MAX), otherwise: 4096)
    }

    /// Limits given outright (for tests of the rule).
    public init(nameMax: Int, pathMax: Int) {
        self.nameMax = nameMax
        self.pathMax = pathMax
    }

    /// Why the output at `relative` (under the output folder) cannot be made, or nil when it fits.
    public func problem(forOutput relative: String) -> String? {
        for name in relative.split(separator: "/") where name.utf8.count > nameMax {
            let shown = name.count > 40 ? name.prefix(20) + "…" + name.suffix(12) : name
            return "its output name \(shown) is \(name.utf8.count) bytes, more than the \(nameMax) "
                + "the output folder's file system allows (NAME_MAX); nothing was read"
        }
        if relative.utf8.count >= pathMax {
            return "its output path is \(relative.utf8.count) bytes, more than the \(pathMax - 1) "
                + "the output folder's file system allows (PATH_MAX); nothing was read"
        }
        return nil
    }

    /// `items` with those whose output does not fit marked (an item already marked is left as it is),
    /// and how many were marked here.
    public func marking(_ items: [ExportItem]) -> (items: [ExportItem], marked: Int) {
        var items = items
        var marked = 0
        for index in items.indices where items[index].problem == nil {
            if let problem = problem(forOutput: items[index].output) {
                items[index].problem = problem
                marked += 1
            }
        }
        return (items, marked)
    }

    private static func limit(_ path: String, _ name: Int32, otherwise fallback: Int) -> Int {
        let value = pathconf(path, name)
        return value > 0 ? Int(value) : fallback
    }
}
