import Foundation

/// The folder holding the machine's slot files (see ``MachineSlots``), opened
/// and checked before anything is made in it.
///
/// The folder decides which jobs may run, so it must be the user's alone:
/// another user who made `/tmp/kiln-<uid>` first could hold every slot forever,
/// or point it (a symlink) where kiln would then create files. So, at every
/// start, the folder is opened with `O_NOFOLLOW | O_DIRECTORY` (a symlink in its
/// place is refused, never followed), its owner and mode are read from the
/// open descriptor (`fstat`, which no later swap of the path can change), and
/// every slot and ticket file is then made relative to that descriptor
/// (`openat`, `O_NOFOLLOW`).
///
/// The rules, by where the folder comes from:
/// - `$KILN_RUNTIME_DIR` (the user chose it) and `$XDG_RUNTIME_DIR/kiln` (in the
///   user's own runtime folder): owned by the user, not a symlink, and not
///   writable by group or others. Readable by others is the user's choice.
/// - `/tmp/kiln-<uid>` (the default, in a folder everyone can write): owned by
///   the user, not a symlink, and no access at all for group or others (kiln
///   makes it 0700). Decision: anything else there was not made by kiln for this
///   user, and a readable folder would show others which processes queue; the
///   user who wants otherwise names a folder with `KILN_RUNTIME_DIR`.
///
/// Rejected design: checking the path with `lstat` before use. Between the
/// check and the use the path can be replaced; the held descriptor cannot.
public struct RuntimeFolder: Sendable {
    /// Where the path came from, which decides how strict the mode check is.
    public enum Source: Sendable, Equatable {
        /// `$KILN_RUNTIME_DIR`, or a folder given to ``MachineSlots`` directly.
        case explicit
        /// `$XDG_RUNTIME_DIR/kiln`.
        case userRuntime
        /// `/tmp/kiln-<uid>`.
        case sharedTemporary
    }

    /// The folder's path (for messages, and to open it).
    public let path: String
    /// Where the path came from.
    public let source: Source

    /// The folder named by `environment`: `$KILN_RUNTIME_DIR`, else `$XDG_RUNTIME_DIR/kiln`, else `/tmp/kiln-<uid>`.
    public init(environment: [String: String]) {
        if let explicit = environment["KILN_RUNTIME_DIR"], !explicit.isEmpty {
            self.init(path: explicit, source: .explicit)
        } else if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            self.init(path: runtime + "/kiln", source: .userRuntime)
        } else {
            self.init(path: "/tmp/kiln-\(geteuid())", source: .sharedTemporary)
        }
    }

    /// The folder `path`, checked by the rules of `source`.
    public init(path: String, source: Source) {
        self.path = path
        self.source = source
    }

    /// Opens the folder (created 0700 when missing, with its missing parents)
    /// and checks it; throws ``RuntimeFolderError`` naming the folder and why
    /// it cannot be used. Nothing is created in it before the check passes.
    func open() throws(RuntimeFolderError) -> HeldDirectory {
        let folder: HeldDirectory
        do throws(OutputError) {
            folder = try HeldDirectory(refusingSymlink: path, create: true, mode: 0o700)
        } catch .symlinkInPath {
            throw .unsafe(path, reason: "is a symbolic link")
        } catch .notADirectory {
            throw .unsafe(path, reason: "is not a directory")
        } catch .system(_, let code) {
            // A folder another user made 0700 cannot even be opened: its owner, read without
            // following (only for the message; nothing is made), says why.
            var info = stat()
            if code == EACCES, lstat(path, &info) == 0,
               let reason = Self.problem(owner: info.st_uid, mode: info.st_mode, source: source) {
                throw .unsafe(path, reason: reason)
            }
            throw .system(path, code)
        } catch {
            throw .unsafe(path, reason: error.description)
        }
        guard let info = folder.identity else { throw .system(path, errno) }
        if let reason = Self.problem(owner: info.st_uid, mode: info.st_mode, source: source) {
            throw .unsafe(path, reason: reason)
        }
        return folder
    }

    /// Why a folder with this owner and mode cannot hold the slots, or nil when it can.
    static func problem(owner: uid_t, mode: mode_t, source: Source) -> String? {
        let me = geteuid()
        if owner != me { return "is owned by uid \(owner), not you (uid \(me))" }
        let permissions = String(format: "%04o", mode & 0o7777)
        if mode & 0o022 != 0 {
            return "is writable by \(mode & 0o002 != 0 ? "others" : "its group") (mode \(permissions))"
        }
        if source == .sharedTemporary && mode & 0o077 != 0 {
            return "is open to others (mode \(permissions); kiln makes it 0700)"
        }
        return nil
    }
}

/// Why the machine's slot folder cannot be used (the job does not start: exit 69).
public enum RuntimeFolderError: Error, Equatable, CustomStringConvertible {
    /// The folder is not the user's alone: its path and why (e.g. "is a symbolic link").
    case unsafe(String, reason: String)
    /// The folder could not be made or opened: its path and `errno`.
    case system(String, Int32)

    public var description: String {
        switch self {
        case .unsafe(let path, let reason):
            return "the slot folder \(path) \(reason); kiln keeps its job slots only in a folder that is yours alone "
                + "and created nothing there; set KILN_RUNTIME_DIR to a folder of your own"
        case .system(let path, let code):
            return "cannot use the slot folder \(path): \(String(cString: strerror(code))); "
                + "set KILN_RUNTIME_DIR to a folder of your own"
        }
    }
}
