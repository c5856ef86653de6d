import Foundation

/// What `--in-place` carries over from an input to the file that replaces it:
/// its owner and group (where this process may give them), its extended
/// attributes (every one it can list and set), and its permission bits.
///
/// Not kept: the access and modification times. The replacement is new content,
/// made at the export's time; tools that rebuild by modification time (make,
/// rsync, backups) must see it changed. (A `--keep-times` flag was weighed and
/// left out: it would also have to travel in the journal for `kiln resume`.)
enum KeptAttributes {
    /// Gives the file open as `target` (written, not yet named in place) the
    /// attributes of the input open as `source`, whose `fstat` is `info`.
    ///
    /// Order matters: `fchown` clears set-user-ID bits and file capabilities,
    /// so it comes first; an ACL (`system.posix_acl_access`) sets the mode as
    /// a side effect, so `fchmod` comes last and has the final word.
    /// - Throws: `OutputError.system` when the mode or a `user.*` attribute
    ///   cannot be set (the input is then kept as it is).
    static func copy(from source: Int32, _ info: stat, to target: Int32, name: String) throws(OutputError) {
        // Owner and group where permitted: a user who is not root can give a file its group
        // (one they belong to) but not its owner; what cannot be given is left as this process made it.
        if fchown(target, info.st_uid, info.st_gid) != 0 && errno == EPERM {
            _ = fchown(target, uid_t.max, info.st_gid)
        }
        try copyExtendedAttributes(from: source, to: target, name: name)
        guard fchmod(target, info.st_mode & 0o7777) == 0 else {
            throw .system("cannot give the replacement of \(name) its mode", errno)
        }
    }

    /// Copies every extended attribute `source` lists. `user.*` attributes are the
    /// user's own and must come along; the other namespaces (`security.*`,
    /// `trusted.*`, `system.*`) need privileges or are the system's to set (a
    /// new file gets its own security label), so a refusal there is passed over.
    private static func copyExtendedAttributes(from source: Int32, to target: Int32, name: String) throws(OutputError) {
        // A file system without extended attributes has none to keep.
        guard let names = LinuxCalls.extendedAttributeNames(of: source) else { return }
        for attribute in names {
            let userOwned = attribute.hasPrefix("user.")
            guard let value = LinuxCalls.extendedAttribute(attribute, of: source) else {
                if userOwned { throw .system("cannot read the attribute \(attribute) of \(name)", errno) }
                continue
            }
            if LinuxCalls.setExtendedAttribute(attribute, to: value, of: target) != 0 && userOwned {
                throw .system("cannot give the replacement of \(name) its attribute \(attribute)", errno)
            }
        }
    }
}
