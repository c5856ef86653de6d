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
///
/// Every folder the scan reaches is listed, the output directory too: a job
/// whose output directory a recursive scan would reach is refused before it is
/// planned (``OutputSafety``), and where a caller skips that check, the files
/// found there are inputs, which the job never writes over. (Rejected: leaving
/// the output directory out of the scan, as kiln did: the images already there
/// were silently dropped from the job, and outputs replaced them.)
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
        var items: [ExportItem] = []
        for input in options.inputs {
            if input == "-" {
                items += try Self.paths(inList: readStandardInput(), nullSeparated: nullSeparated).map(fileItem)
            } else if isDirectory(input) {
                walk(directory: input, relative: "", into: &items)
            } else {
                items.append(fileItem(input))
            }
        }
        return markCollisions(items)
    }

    /// The paths of a `-` list, in order, empty entries left out.
    static func paths(inList data: Data, nullSeparated: Bool) throws(ExportError) -> [String] {
        let separator = nullSeparated ? UInt8(0) : UInt8(ascii: "\n")
        // One pass over the bytes: a list of 100,000 paths is planned in milliseconds.
        let bytes = [UInt8](data)
        var paths: [String] = []
        var start = 0, index = 0
        for end in bytes.indices where bytes[end] == separator || end == bytes.count - 1 {
            let stop = bytes[end] == separator ? end : end + 1
            defer { start = end + 1; index += 1 }
            guard stop > start else { continue }
            let entry = bytes[start..<stop]
            let place = (nullSeparated ? "entry " : "line ") + String(index + 1)
            guard let path = String(validating: entry, as: UTF8.self) else {
                throw .badInputList(place: place, reason: "is not valid UTF-8")
            }
            // In UTF-8 every byte of a multi-byte character is 0x80 or more: a control character is its own byte.
            if let control = entry.first(where: { $0 < 0x20 || $0 == 0x7F }) {
                let hint = control == 0 ? " (a NUL-separated list, as find -print0 writes, needs -0)" : ""
                throw .badInputList(place: place, reason: "holds the control character U+"
                                    + String(format: "%04X", control) + hint)
            }
            paths.append(path)
        }
        return paths
    }

    private func fileItem(_ path: String) -> ExportItem {
        // In place, the output is the input itself, under its own name.
        ExportItem(input: path, output: options.inPlace ? path : Self.pngName(Self.mirroredPath(of: path)))
    }

    private func walk(directory: String, relative: String, into items: inout [ExportItem]) {
        for entry in Self.entries(of: directory).sorted(by: { $0.name < $1.name }) where !entry.name.hasPrefix(".") {
            let name = entry.name
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            let rel = relative.isEmpty ? name : relative + "/" + name
            // The listing says most entries' type; only the others are looked at.
            var type = entry.type
            if type == nil {
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                type = info.st_mode & S_IFMT
            }
            switch type {
            case S_IFDIR:
                if options.recursive { walk(directory: path, relative: rel, into: &items) }
            case S_IFREG, S_IFLNK:
                // Symlinked files are inputs like any other; symlinked directories are not
                // followed (they could loop), and lstat reports them as links to check here.
                if type == S_IFLNK && isDirectory(path) { continue }
                if name.lowercased().hasSuffix(".png") {
                    items.append(ExportItem(input: path, output: options.inPlace ? path : Self.pngName(rel)))
                }
            default:
                continue
            }
        }
    }

    /// The entries of a directory with their type (`S_IFDIR`, `S_IFREG`, `S_IFLNK`, …)
    /// where the file system reports it in the listing (`d_type`), in one pass of `readdir`.
    private static func entries(of directory: String) -> [(name: String, type: mode_t?)] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var entries: [(name: String, type: mode_t?)] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            let type: mode_t?
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_REG): type = S_IFREG
            case Int32(DT_DIR): type = S_IFDIR
            case Int32(DT_LNK): type = S_IFLNK
            case Int32(DT_UNKNOWN): type = nil
            default: type = S_IFIFO  // devices, sockets, pipes: never inputs
            }
            entries.append((name, type))
        }
        return entries
    }

    private func markCollisions(_ items: [ExportItem]) -> [ExportItem] {
        var firstInput: [String: String] = [:]
        firstInput.reserveCapacity(items.count)
        var items = items
        for index in items.indices {
            if let other = firstInput[items[index].output] {
                items[index].problem = "its output \(items[index].output) is also the output of \(other)"
            } else {
                firstInput[items[index].output] = items[index].input
            }
        }
        return items
    }

    private func isDirectory(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }

    /// The path an input's output mirrors: normalized when relative, the name alone otherwise.
    static func mirroredPath(of path: String) -> String {
        if let clean = cleanMirroredPath(of: path) { return clean }
        let parts = path.split(separator: "/").filter { $0 != "." }
        let name = parts.last.map(String.init) ?? path
        if path.hasPrefix("/") || parts.contains("..") { return name }
        return parts.joined(separator: "/")
    }

    /// ``mirroredPath(of:)`` of the common path — no empty, `.` or `..` component,
    /// no trailing slash — in one pass over its bytes; nil for any other path.
    private static func cleanMirroredPath(of path: String) -> String? {
        let bytes = path.utf8
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        let absolute = bytes.first == slash
        var componentStart = bytes.startIndex
        var nameStart = bytes.startIndex
        var index = bytes.startIndex
        while true {
            let atEnd = index == bytes.endIndex
            if atEnd || bytes[index] == slash {
                let component = bytes[componentStart..<index]
                let isRoot = absolute && componentStart == bytes.startIndex && index == componentStart
                if !isRoot {
                    if component.isEmpty || component.allSatisfy({ $0 == dot }) && component.count <= 2 { return nil }
                    nameStart = componentStart
                }
                if atEnd { break }
                componentStart = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        return absolute ? String(path[nameStart...]) : path
    }

    /// `path` with its extension replaced by `.png` (or `.png` appended when it has none).
    static func pngName(_ path: String) -> String {
        let bytes = path.utf8
        let slash = bytes.lastIndex(of: UInt8(ascii: "/")).map { bytes.index(after: $0) } ?? bytes.startIndex
        if let dot = bytes[slash...].lastIndex(of: UInt8(ascii: ".")), dot != slash {
            return String(path[..<dot]) + ".png"
        }
        return path + ".png"
    }
}
