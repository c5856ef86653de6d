import Foundation
import ImageCore

/// Expands the inputs of a job (files, directories, `-` for a list on standard
/// input) into the ordered list of items to export.
///
/// The `-` list holds one path per line, or per NUL-terminated entry with
/// ``nullSeparated`` (the `find -print0` / `xargs -0` convention).
/// An entry that is not valid UTF-8 refuses the whole list, naming the entry.
/// In a newline list so does one holding a control character (a NUL is one:
/// the list was meant for `-0`): a path is opened exactly as it is reported, or
/// not at all, and a list that holds a tab or an escape was most likely not
/// meant as paths. A NUL-separated list takes every byte but NUL, newlines
/// included: that is what `-0` is for, and the same names are accepted as
/// arguments and in folders.
///
/// Where an output goes (SPEC §5: "outputs mirror the input's relative path"):
/// - a file under a directory input keeps its path relative to that directory;
/// - a relative file path (argument or stdin line) keeps its normalized path;
/// - an absolute path, or one that climbs out with `..`, keeps only its name.
/// The extension becomes the output format's (`.png`, `.jpg`): with `--format
/// same`, the format the input's name says (`.jpeg` and `.JPG` give `.jpg`), or,
/// for a file named explicitly whose name says none, the format its content is
/// (one read of its first bytes). Directories contribute only the files whose
/// extension names a format Kiln reads (`png jpg jpeg jpe jfif webp`, any case) and skip hidden entries, so the job's own `.kiln/` folder and
/// unrelated files are never picked up; a file named explicitly is always tried.
///
/// Every folder the scan reaches is listed, the output directory too: a job
/// whose output directory a recursive scan would reach is refused before it is
/// planned (``OutputSafety``), and where a caller skips that check, the files
/// found there are inputs, which the job never writes over. (Rejected: leaving
/// the output directory out of the scan, as kiln did: the images already there
/// were silently dropped from the job, and outputs replaced them.)
///
/// A name in a folder that is not valid UTF-8 (Linux names are bytes) cannot be
/// carried by a `String`, so no path kiln opens can name it: such an image is
/// an item with a ``ExportItem/problem`` — it fails alone, shown escaped
/// (``escapedName(_:)``), and the batch goes on — and such a folder under
/// `--recursive` is one item saying its images were not exported. (Rejected:
/// an escape that every open un-escapes, which would make every path kiln
/// touches carry bytes rather than text; and a lossy decoding, which named a
/// file that is not there.) Hidden entries and other names are passed over
/// as always, whatever their bytes; the other files (not the hidden ones) are
/// reported as ``IgnoredFile``s by ``scan()``.
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
        try scan().items
    }

    /// The items in input order (as ``collect()``) and the files the folder scans passed over
    /// (``IgnoredFile``). A file named on the command line or in a list is never passed over: it is tried.
    ///
    /// - Throws: ``ExportError/badInputList(place:reason:)`` for an unusable `-` list (nothing is exported then).
    public func scan() throws(ExportError) -> InputScan {
        var items: [ExportItem] = []
        var ignored: [IgnoredFile] = []
        var imageless: [String] = [], listedFolders: [String] = []
        for input in options.inputs {
            if input == "-" {
                // A list names files: `find DIR -print0` names DIR and its subfolders too, and their images on their
                // own lines. Its folders are passed over, said once (each failed as "not an image file", exit 1).
                for path in try Self.paths(inList: readStandardInput(), nullSeparated: nullSeparated) {
                    if isFolder(path) { listedFolders.append(path) } else { items.append(fileItem(path)) }
                }
            } else if isFolder(input) {
                let before = items.count
                walk(directory: input, relative: "", into: &items, ignoring: &ignored)
                if items.count == before { imageless.append(input) }
            } else {
                items.append(fileItem(input))
            }
        }
        let (marked, repeated) = markCollisions(items)
        return InputScan(items: marked, ignored: IgnoredFiles(ignored), repeated: repeated, imagelessFolders: imageless,
                         listedFolders: listedFolders)
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
            if !nullSeparated, let control = entry.first(where: { $0 < 0x20 || $0 == 0x7F }) {
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
        let format = ImageCodecs.format(byExtensionOf: path) ?? ImageCodecs.format(contentsOf: path)
        return ExportItem(input: path, output: options.inPlace ? path : outputName(Self.mirroredPath(of: path), format: format))
    }

    /// Why an image whose name is not valid UTF-8 is not exported.
    static let undecodableFileProblem = "its name is not valid UTF-8; kiln reads only UTF-8 names (rename it)"
    /// Why the images of a folder whose name is not valid UTF-8 are not exported.
    static let undecodableFolderProblem = "this folder's name is not valid UTF-8; kiln reads only UTF-8 names, "
        + "so the images in it were not exported (rename it)"

    /// Why the images of a folder the scan cannot list are not exported.
    static func unlistedFolderProblem(_ reason: String) -> String {
        "cannot list this folder (\(reason)), so the images in it were not exported"
    }

    /// Adds the items under `directory` to `items`, and the files passed over to `ignored`.
    /// A folder that cannot be listed is one item saying so (its images fail, not vanish).
    private func walk(directory: String, relative: String, into items: inout [ExportItem],
                      ignoring ignored: inout [IgnoredFile]) {
        let entries: [(name: EntryName, type: mode_t?)]
        switch Self.entries(of: directory) {
        case .success(let listed): entries = listed
        case .failure(let error):
            let shown = relative.isEmpty ? directory : relative
            items.append(ExportItem(input: directory, output: options.inPlace ? directory : shown,
                                    problem: Self.unlistedFolderProblem(error.reason)))
            return
        }
        for entry in entries.sorted(by: { $0.name.shown < $1.name.shown })
        where !entry.name.shown.hasPrefix(".") {
            let name = entry.name.shown
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            let rel = relative.isEmpty ? name : relative + "/" + name
            guard entry.name.isUTF8 else {
                // `path` names no file (its name is shown escaped): the item only reports it.
                if entry.type == S_IFDIR && options.recursive {
                    items.append(ExportItem(input: path, output: options.inPlace ? path : rel,
                                            problem: Self.undecodableFolderProblem))
                } else if entry.type == S_IFREG, let format = ImageCodecs.format(byExtensionOf: name) {
                    items.append(ExportItem(input: path, output: options.inPlace ? path : outputName(rel, format: format),
                                            problem: Self.undecodableFileProblem))
                } else if entry.type == S_IFREG {
                    ignored.append(IgnoredFile(path: path))
                } else if entry.type == S_IFLNK {
                    if options.recursive { ignored.append(IgnoredFile(path: path, special: IgnoredFile.linkedFolder)) }
                } else if let type = entry.type, type != S_IFDIR {
                    // Said, as one by a UTF-8 name is (before, left out of the events and the counts).
                    ignored.append(IgnoredFile(path: path, special: SpecialFile.kind(type) ?? "not a regular file"))
                }
                continue
            }
            // The listing says most entries' type; only the others are looked at.
            var type = entry.type
            if type == nil {
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                type = info.st_mode & S_IFMT
            }
            switch type {
            case S_IFDIR:
                if options.recursive { walk(directory: path, relative: rel, into: &items, ignoring: &ignored) }
            case S_IFREG, S_IFLNK:
                // Symlinked files are inputs like any other; symlinked directories are not
                // followed (they could loop), and lstat reports them as links to check here.
                if type == S_IFLNK && isFolder(path) {
                    if options.recursive { ignored.append(IgnoredFile(path: path, special: IgnoredFile.linkedFolder)) }
                    continue
                }
                if let format = ImageCodecs.format(byExtensionOf: name) {
                    items.append(ExportItem(input: path, output: options.inPlace ? path : outputName(rel, format: format)))
                } else {
                    ignored.append(IgnoredFile(path: path))
                }
            default:
                // A pipe, a socket, a device: never opened, but said.
                var info = stat()
                let kind = lstat(path, &info) == 0 ? SpecialFile.kind(info.st_mode) : nil
                ignored.append(IgnoredFile(path: path, special: kind ?? "not a regular file"))
            }
        }
    }

    /// A name read from a folder: the name itself when it is valid UTF-8, else
    /// its bytes shown escaped (``escapedName(_:)``), which name no file.
    struct EntryName {
        /// The name, or its escaped form when ``isUTF8`` is false.
        let shown: String
        /// Whether ``shown`` is the name itself, a path kiln can open.
        let isUTF8: Bool
    }

    /// The entries of a directory with their type (`S_IFDIR`, `S_IFREG`, `S_IFLNK`, …)
    /// where the file system reports it in the listing (`d_type`), in one pass of `readdir`.
    /// An entry whose name is not UTF-8 has its type here unless it cannot be looked at (see ``undecodableType(in:name:)``).
    private static func entries(of directory: String) -> Result<[(name: EntryName, type: mode_t?)], ListingError> {
        guard let stream = opendir(directory) else { return .failure(ListingError(reason: String(cString: strerror(errno)))) }
        defer { closedir(stream) }
        var entries: [(name: EntryName, type: mode_t?)] = []
        while let entry = readdir(stream) {
            var type: mode_t?
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_REG): type = S_IFREG
            case Int32(DT_DIR): type = S_IFDIR
            case Int32(DT_LNK): type = S_IFLNK
            case Int32(DT_UNKNOWN): type = nil
            default: type = S_IFIFO  // devices, sockets, pipes: never inputs
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw -> EntryName in
                let bytes = raw.prefix { $0 != 0 }
                if let text = String(validating: bytes, as: UTF8.self) { return EntryName(shown: text, isUTF8: true) }
                // No path string reaches this entry: its type is asked here, by its bytes, while the folder is open.
                type = undecodableType(in: stream, name: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
                return EntryName(shown: escapedName(bytes), isUTF8: false)
            }
            if name.shown == "." || name.shown == ".." { continue }
            entries.append((name, type))
        }
        return .success(entries)
    }

    /// Why a folder could not be listed: the system's reason ("Permission denied").
    struct ListingError: Error {
        let reason: String
    }

    /// The type of the entry `name` (NUL-terminated bytes) of the open folder `stream`, as the walk
    /// treats it: `S_IFDIR` for a folder, `S_IFREG` for a file or a link to anything but a folder (a
    /// file's links are inputs), `S_IFLNK` for a link to a folder (the walk never follows them: they
    /// could loop), and its own type for the rest (a pipe, a socket, a device: never inputs); nil when
    /// it cannot be looked at.
    private static func undecodableType(in stream: OpaquePointer, name: UnsafePointer<CChar>) -> mode_t? {
        let folder = dirfd(stream)
        var info = stat()
        guard fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFLNK:
            let followed = fstatat(folder, name, &info, 0) == 0 ? info.st_mode & S_IFMT : S_IFREG  // dangling: a file link
            return followed == S_IFDIR ? S_IFLNK : S_IFREG
        case let type: return type
        }
    }

    /// `bytes` (a name) as text: each byte that is not part of valid UTF-8 written `\xHH`,
    /// a control character too (a report line stays one line), and the backslash
    /// itself `\\`, so the form reads back one way: the form `ls -b` shows such
    /// names in. A name with the byte FF, `bad<FF>name.png`, is shown `bad\xFFname.png`.
    static func escapedName(_ bytes: some Collection<UInt8>) -> String {
        let bytes = Array(bytes)
        var text = ""
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            // The length a sequence with this lead byte has in UTF-8 (0: it leads none).
            let length = switch lead {
            case 0x00...0x7F: 1
            case 0xC2...0xDF: 2
            case 0xE0...0xEF: 3
            case 0xF0...0xF4: 4
            default: 0
            }
            if length > 0, index + length <= bytes.count,
               let character = String(validating: bytes[index..<index + length], as: UTF8.self) {
                if lead == UInt8(ascii: "\\") {
                    text += "\\\\"
                } else if lead < 0x20 || lead == 0x7F {
                    text += String(format: "\\x%02X", lead)
                } else {
                    text += character
                }
                index += length
            } else {
                text += String(format: "\\x%02X", lead)
                index += 1
            }
        }
        return text
    }

    /// The items with a second input of the same output, or an output in the journal's folder, marked, and the
    /// inputs left out because they name a file already named for the same output (the same device and inode:
    /// overlapping globs, `in ./in`; in place, another spelling of the same path, links resolved). Before, each such
    /// repeat failed, naming itself as the other input of its output. An item that already has a
    /// problem writes nothing, so it claims no output.
    ///
    /// In place, a second hard link is no repeat: replacing the first path's file (a rename over it)
    /// leaves the second naming the old pixels, which its own item then replaces. A symbolic link is replaced
    /// itself (a rename over it), not its target, so it is no repeat either, unless its target is an input too:
    /// then the link, read after its target was replaced, was processed a second time; it is left out, and
    /// stays a link to the replaced file.
    ///
    /// Swift compares strings by canonical equivalence, so two names that differ only in how Unicode composes
    /// an accent (NFC `café`, NFD `cafe` + U+0301), two files to Linux, are one key to every record kiln keeps:
    /// the second such output fails alone, saying so (before, in place, it was left out as a repeat, exit 0).
    ///
    /// Of two inputs for one output, the one whose name the output has keeps it (`a.png` beside `a.PNG`, `b.jpg`
    /// beside `b.jpeg`), whichever comes first; else the first. Before, the first in byte order kept it: `a.PNG`,
    /// and `a.png` failed. An output that is another's folder (`x.png` from a file `x.PNG`, `x.png/inner.png` from
    /// a folder `x.png`) fails too, the later of the two: no file can be both. Before, that was found only while
    /// writing, and which of the two failed changed from run to run ("the output appeared while the job ran", or
    /// "is not a directory").
    private func markCollisions(_ items: [ExportItem]) -> (items: [ExportItem], repeated: [String]) {
        var firstInput: [String: (input: String, output: String)] = [:]
        firstInput.reserveCapacity(items.count)
        // Every input met so far for each output (the one that took it and those that failed for it): the first one's
        // name, until a second input comes (then one `stat`), and the files of the others.
        var seen: [String: (first: String?, files: Set<FileIdentity>)] = [:]
        // For each output, the first input whose name it has (`in/a.png` for `a.png`), which keeps it: one before
        // it (`in/a.PNG`) yields. Not in place, where every output is its input's own name.
        var ownName: [String: Int] = [:]
        if !options.inPlace {
            for (index, item) in items.enumerated() where item.problem == nil && ownName[item.output] == nil
                && Self.hasOutputsName(item) {
                ownName[item.output] = index
            }
        }
        // The input of the first output under each folder an output needs (`a`, `a/b` for `a/b/c.png`).
        var folderOwner: [String: String] = [:]
        var inPlacePaths: [String: (path: String, input: String)] = [:]
        // In place, each input resolved once (links, `.`, `..`), and whether it is a symbolic link itself.
        let resolved: [(path: String, link: Bool)?] = items.map { item in
            guard options.inPlace, item.problem == nil, let path = Self.resolvedPath(item.input) else { return nil }
            return (path, Self.isSymbolicLink(item.input))
        }
        // By their bytes: NFC and NFD spellings are two files (see above).
        let linkedTargets = Set(resolved.compactMap { $0.flatMap { $0.link ? nil : Array($0.path.utf8) } })
        var kept: [ExportItem] = []
        kept.reserveCapacity(items.count)
        var repeated: [String] = []
        for (index, var item) in items.enumerated() {
            // A file named as `.kiln/x.png` keeps that relative path: written into the journal's folder, it was
            // reported written and removed with the journal.
            if item.problem == nil, !options.inPlace, item.output.split(separator: "/").first == ".kiln" {
                item.problem = "its output \(item.output) would be inside the output folder's journal, .kiln, which kiln "
                    + "removes; name it by its absolute path, whose output keeps only its name"
            }
            if item.problem == nil {
                if let (path, link) = resolved[index] {
                    if link {
                        if linkedTargets.contains(Array(path.utf8)) {
                            repeated.append(item.input)
                            continue
                        }
                    } else if let other = inPlacePaths[path] {
                        guard other.path.utf8.elementsEqual(path.utf8) else {
                            item.problem = Self.normalisationProblem(item.output, other.input)
                            kept.append(item)
                            continue
                        }
                        repeated.append(item.input)
                        continue
                    } else {
                        inPlacePaths[path] = (path, item.input)
                    }
                }
                // The same file named again for the same output, whether the first took it or yielded it: once. (Looked
                // at only where the output has an input already: a plan of 100,000 names stats none.)
                let yieldsTo = firstInput[item.output] == nil ? ownName[item.output].flatMap { $0 > index ? items[$0] : nil } : nil
                if var met = seen[item.output] ?? (yieldsTo == nil ? nil : (nil, [])) {
                    if let first = met.first, let file = FileIdentity(path: first) { met.files.insert(file) }
                    met.first = nil
                    let file = FileIdentity(path: item.input)
                    let again = file.map { met.files.contains($0) || yieldsTo.flatMap { FileIdentity(path: $0.input) } == $0 } ?? false
                    if let file, !again { met.files.insert(file) }
                    seen[item.output] = met
                    if again {
                        repeated.append(item.input)
                        continue
                    }
                } else {
                    seen[item.output] = (item.input, [])
                }
                // The output's claimant: the input that took it, or a later one whose name it is.
                if let other = firstInput[item.output] ?? yieldsTo.map({ ($0.input, $0.output) }) {
                    let named = Self.hasOutputsName(ExportItem(input: other.input, output: other.output)) && !Self.hasOutputsName(item)
                    item.problem = !other.output.utf8.elementsEqual(item.output.utf8)
                        ? Self.normalisationProblem(item.output, other.input)
                        : "its output \(item.output) is also the output of \(other.input)" + (named ? ", whose name it is" : "")
                } else if !options.inPlace, let clash = Self.folderClash(item.output, outputs: firstInput, folders: folderOwner) {
                    item.problem = clash
                } else {
                    firstInput[item.output] = (item.input, item.output)
                    var folder = item.output[...]
                    while let slash = folder.lastIndex(of: "/") {
                        folder = folder[..<slash]
                        if folderOwner[String(folder)] == nil { folderOwner[String(folder)] = item.input }
                    }
                }
            }
            kept.append(item)
        }
        return (kept, repeated)
    }

    /// Whether `item`'s output has its input's own name (`a.png` from `in/a.png`; not from `in/a.PNG`).
    private static func hasOutputsName(_ item: ExportItem) -> Bool {
        let name = { (path: String) in path.split(separator: "/").last.map { Array($0.utf8) } ?? [] }
        return name(item.input) == name(item.output)
    }

    /// Why `output` cannot be written beside the outputs claimed so far: it is the folder of one (`folders`:
    /// each folder an output needs, with that output's input), or a folder it needs is one (`outputs`); nil when neither.
    private static func folderClash(_ output: String, outputs: [String: (input: String, output: String)],
                                    folders: [String: String]) -> String? {
        if let other = folders[output] {
            return "its output \(output) is a folder of \(other)'s output; a file and a folder cannot share a name"
        }
        var folder = output[...]
        while let slash = folder.lastIndex(of: "/") {
            folder = folder[..<slash]
            if let other = outputs[String(folder)] {
                return "its output needs a folder \(folder), which is the output of \(other.input); a file and a folder "
                    + "cannot share a name"
            }
        }
        return nil
    }

    /// Why an output whose name differs from `other`'s only in Unicode normalisation fails.
    private static func normalisationProblem(_ output: String, _ other: String) -> String {
        "its name \(output) and \(other)'s differ only in how Unicode composes their characters (NFC and NFD "
            + "forms), which kiln's records cannot tell apart; rename one of them"
    }

    /// Whether `path` itself (its last component) is a symbolic link.
    private static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }

    /// `path` with every link, `.` and `..` resolved (realpath(3)); nil when it names nothing.
    private static func resolvedPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The path an input's output mirrors: normalized when relative (a `..` taking back the folder before it:
    /// `in/../in/a.png` mirrors `in/a.png`, where it kept only `a.png`), the name alone when absolute or when a `..`
    /// climbs out of the folder kiln was started in.
    static func mirroredPath(of path: String) -> String {
        if let clean = cleanMirroredPath(of: path) { return clean }
        let parts = path.split(separator: "/").filter { $0 != "." }
        let name = parts.last.map(String.init) ?? path
        if path.hasPrefix("/") { return name }
        var kept: [Substring] = []
        for part in parts {
            if part != ".." { kept.append(part) } else if kept.popLast() == nil { return name }
        }
        return kept.isEmpty ? name : kept.joined(separator: "/")
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

    /// The output path of an input mirrored to `path`, in `source`'s format (the one its name
    /// or content says, if any), named with the extension of the format the job writes it in.
    private func outputName(_ path: String, format source: ImageFormat?) -> String {
        let format = ImageCodecs.format(of: options.plan.output.format) ?? source ?? .png
        return Self.renamed(path, extension: format.fileExtension)
    }

    /// `path` with its extension replaced by `fileExtension` (or it appended when there is none).
    static func renamed(_ path: String, extension fileExtension: String) -> String {
        let bytes = path.utf8
        let slash = bytes.lastIndex(of: UInt8(ascii: "/")).map { bytes.index(after: $0) } ?? bytes.startIndex
        if let dot = bytes[slash...].lastIndex(of: UInt8(ascii: ".")), dot != slash {
            return String(path[..<dot]) + "." + fileExtension
        }
        return path + "." + fileExtension
    }
}
