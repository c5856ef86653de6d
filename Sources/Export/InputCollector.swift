import Foundation

/// Expands the inputs of a job (files, directories, `-` for a list on standard
/// input) into the ordered list of items to export.
///
/// The `-` list holds one path per line, or per NUL-terminated entry with
/// ``nullSeparated`` (the `find -print0` / `xargs -0` convention).
/// An entry that is not valid UTF-8 or holds a control character (a NUL in a
/// newline list is one: the list was meant for `-0`) refuses the whole list,
/// naming the entry: a path is opened exactly as it is reported, or not at all.
///
/// Where an output goes (SPEC §5: "outputs mirror the input's relative path"):
/// - a file under a directory input keeps its path relative to that directory;
/// - a relative file path (argument or stdin line) keeps its normalized path;
/// - an absolute path, or one that climbs out with `..`, keeps only its name.
/// The extension becomes `.png`. Directories contribute only `*.png` files
/// (any case) and skip hidden entries, so the job's own `.kiln/` folder and
/// unrelated files are never picked up; a file named explicitly is always tried.
public struct InputCollector {
    /// The job's options (inputs, output directory, `recursive`).
    public let options: ExportOptions
    /// The `-` list is NUL-separated (`find -print0`, `-0`) rather than newline-separated.
    public var nullSeparated = false
    /// Reads the `-` list; defaults to standard input.
    public var readStandardInput: () -> Data = { FileHandle.standardInput.readDataToEndOfFile() }

    /// A collector for these options.
    public init(options: ExportOptions) {
        self.options = options
    }

    /// The items in input order, duplicates of the same output marked as problems.
    ///
    /// - Throws: ``ExportError/badInputList(place:reason:)`` for an unusable `-` list (nothing is exported then).
    public func collect() throws(ExportError) -> [ExportItem] {
        let outputRoot = FileIdentity(path: options.outputDirectory)
        var items: [ExportItem] = []
        for input in options.inputs {
            if input == "-" {
                items += try Self.paths(inList: readStandardInput(), nullSeparated: nullSeparated).map(fileItem)
            } else if isDirectory(input) {
                walk(directory: input, relative: "", outputRoot: outputRoot, into: &items)
            } else {
                items.append(fileItem(input))
            }
        }
        return markCollisions(items)
    }

    /// The paths of a `-` list, in order, empty entries left out.
    static func paths(inList data: Data, nullSeparated: Bool) throws(ExportError) -> [String] {
        let separator = nullSeparated ? UInt8(0) : UInt8(ascii: "\n")
        var paths: [String] = []
        for (index, bytes) in data.split(separator: separator, omittingEmptySubsequences: false).enumerated()
        where !bytes.isEmpty {
            let place = (nullSeparated ? "entry " : "line ") + String(index + 1)
            guard let path = String(validating: bytes, as: UTF8.self) else {
                throw .badInputList(place: place, reason: "is not valid UTF-8")
            }
            if let control = path.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                let hint = control == "\0" ? " (a NUL-separated list, as find -print0 writes, needs -0)" : ""
                throw .badInputList(place: place, reason: "holds the control character U+"
                                    + String(format: "%04X", control.value) + hint)
            }
            paths.append(path)
        }
        return paths
    }

    private func fileItem(_ path: String) -> ExportItem {
        // In place, the output is the input itself, under its own name.
        ExportItem(input: path, output: options.inPlace ? path : Self.pngName(Self.mirroredPath(of: path)))
    }

    private func walk(directory: String, relative: String, outputRoot: FileIdentity?, into items: inout [ExportItem]) {
        // Never descend into the output directory itself (it may sit inside an input).
        if let outputRoot, FileIdentity(path: directory) == outputRoot, !relative.isEmpty { return }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            let rel = relative.isEmpty ? name : relative + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                if options.recursive { walk(directory: path, relative: rel, outputRoot: outputRoot, into: &items) }
            case S_IFREG, S_IFLNK:
                // Symlinked files are inputs like any other; symlinked directories are not
                // followed (they could loop), and lstat reports them as links to check here.
                if (info.st_mode & S_IFMT) == S_IFLNK && isDirectory(path) { continue }
                if name.lowercased().hasSuffix(".png") {
                    items.append(ExportItem(input: path, output: options.inPlace ? path : Self.pngName(rel)))
                }
            default:
                continue
            }
        }
    }

    private func markCollisions(_ items: [ExportItem]) -> [ExportItem] {
        var firstInput: [String: String] = [:]
        return items.map { item in
            var item = item
            if let other = firstInput[item.output] {
                item.problem = "its output \(item.output) is also the output of \(other)"
            } else {
                firstInput[item.output] = item.input
            }
            return item
        }
    }

    private func isDirectory(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }

    /// The path an input's output mirrors: normalized when relative, the name alone otherwise.
    static func mirroredPath(of path: String) -> String {
        let parts = path.split(separator: "/").filter { $0 != "." }
        let name = parts.last.map(String.init) ?? path
        if path.hasPrefix("/") || parts.contains("..") { return name }
        return parts.joined(separator: "/")
    }

    /// `path` with its extension replaced by `.png` (or `.png` appended when it has none).
    static func pngName(_ path: String) -> String {
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        if let dot = path[slash...].lastIndex(of: "."), dot != slash {
            return String(path[..<dot]) + ".png"
        }
        return path + ".png"
    }
}
