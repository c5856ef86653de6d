/// A file a folder scan passed over: its name does not end in the extension
/// of a format Kiln reads (``scannedExtensions``, any case).
///
/// The scan selects by name, not by content (decided for issue 24): opening every
/// other file of a folder to read its first bytes would cost an open per file, and
/// a scan that takes what a name says is predictable. A name with the extension of
/// an image format Kiln knows but does not read (``ForeignFormats``: `.gif`,
/// `.tif`, `.heic`, …) is reported as an image in that format "by its name"; any
/// other file only as "not an image file Kiln reads". A special file (a named pipe, a socket, a device),
/// whatever its name, is "not a regular file": it is never opened. Under `--recursive`, a symbolic link to a
/// folder is reported too (``linkedFolder``): the scan follows none, as they can loop, and one passed over in
/// silence looked like a folder exported. Hidden entries, the job's own `.kiln` folder among them, and folders
/// are never reported.
public struct IgnoredFile: Sendable, Equatable {
    /// The file's path as the scan reached it (a name that is not valid UTF-8 shown escaped).
    public let path: String
    /// The image format its name says ("JPEG"), or nil when it does not look like an image (or is a special file).
    public let format: String?
    /// What a special file is ("a named pipe (FIFO)"); nil for a regular file.
    public let special: String?

    /// The file at `path`, its format taken from its name; `special`: what it is, when it is no regular file.
    init(path: String, special: String? = nil) {
        self.path = path
        self.special = special
        format = special != nil ? nil : ForeignFormats.name(byExtensionOf: path.split(separator: "/").last.map(String.init) ?? path)
    }

    /// What ``special`` says of a symbolic link to a folder that `--recursive` passed over.
    public static let linkedFolder = "a symbolic link to a folder, which --recursive does not follow (links can loop)"

    /// Why it was passed over: "a GIF image (by its name); kiln reads PNG, JPEG and WebP",
    /// "not an image file Kiln reads (.png, .jpg, .jpeg, .jpe, .jfif, .webp)", "not a regular file: a named pipe (FIFO)",
    /// or ``linkedFolder``.
    public var reason: String {
        if special == Self.linkedFolder { return Self.linkedFolder }
        if let special { return special == "not a regular file" ? special : "not a regular file: \(special)" }
        return format.map { "\(ForeignFormats.withArticle($0)) image (by its name); kiln reads \(ImageCodecs.readableNames)" }
            ?? "not an image file Kiln reads (\(IgnoredFile.scannedExtensions))"
    }

    /// ".png, .jpg, .jpeg, .jpe, .jfif, .webp": the extensions (any case) a folder scan picks up.
    public static let scannedExtensions = ImageCodecs.extensions.map { "." + $0.name }.joined(separator: ", ")
}

/// The files a job's folder scans passed over, counted for the job's summary.
public struct IgnoredFiles: Sendable, Equatable {
    /// Each file, in the order the scan met them.
    public let files: [IgnoredFile]

    /// These files.
    public init(_ files: [IgnoredFile] = []) {
        self.files = files
    }

    /// How many look like images by their name.
    public var images: Int { files.count { $0.format != nil } }
    /// How many do not (special files included).
    public var others: Int { files.count - images }
    /// How many are special files (pipes, sockets, devices).
    public var specials: Int { files.count { $0.special != nil && $0.special != IgnoredFile.linkedFolder } }
    /// How many are symbolic links to folders (under `--recursive`).
    public var linkedFolders: Int { files.count { $0.special == IgnoredFile.linkedFolder } }

    /// The image formats with how many files each, the most frequent first (then by name).
    public var formats: [(format: String, count: Int)] {
        var counts: [String: Int] = [:]
        for file in files { if let format = file.format { counts[format, default: 0] += 1 } }
        return counts.map { (format: $0.key, count: $0.value) }
            .sorted { $0.count != $1.count ? $0.count > $1.count : $0.format < $1.format }
    }
}

/// What ``InputCollector`` found: the items to export and the files passed over.
public struct InputScan: Sendable {
    /// The items in input order, duplicates of the same output marked as problems.
    public var items: [ExportItem]
    /// The files the folder scans passed over.
    public var ignored: IgnoredFiles
    /// Inputs left out because they name a file named before for the same output (exported once).
    public var repeated: [String] = []
    /// Folders named as inputs in which the scan found no image (a folder named `x.png` among files, a
    /// folder whose images are in subfolders without `--recursive`): said, not passed over in silence.
    public var imagelessFolders: [String] = []
    /// Folders a `-` list named, passed over: a list names files (its folders' images on their own lines, as
    /// `find` prints them).
    public var listedFolders: [String] = []
}
