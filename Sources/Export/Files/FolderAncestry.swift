import Foundation

/// Where a folder is, or will be once made, as file identities: the folder
/// itself when it exists, and every folder that holds it, up to `/`.
///
/// The output folder may not exist yet: ``OutputDirectory`` makes the missing
/// components under the nearest existing folder of its path, so that folder
/// and those above it are where the output will lie. The chain above is read
/// by the kernel (`F/..`, `F/../..`, …), not from the path as written, so `.`,
/// symlinks, bind mounts and names that are not UTF-8 lead to the folders a
/// scan would pass through. (Rejected: `realpath` and its string's parents —
/// a component that is not UTF-8 would not survive the trip through `String`.)
///
/// A `..` after a missing component (`d/new/../../x`) is resolved only as far
/// as what exists: the chain then starts lower than where the folder will be
/// made, so a check against it can refuse more than needed, never less.
struct FolderAncestry {
    /// The folder itself, when it exists.
    let folder: FileIdentity?
    /// The folders that hold it (or will hold it once made), nearest first, `/` last.
    let holders: [FileIdentity]

    /// The ancestry of the folder `path` names (relative to the working directory when relative).
    init(path: String) {
        var existing = path.isEmpty ? "." : path
        var exists = true
        while !isFolder(existing) {
            let next = Self.parent(of: existing)
            guard next != existing else {
                // Not even the working directory is there: nothing can be said (and nothing will be made).
                folder = nil
                holders = []
                return
            }
            existing = next
            exists = false
        }
        folder = exists ? FileIdentity(path: existing) : nil
        var chain: [FileIdentity] = []
        var step = exists ? existing + "/.." : existing
        // `/..` is `/` itself: the chain ends when a step names the folder before it.
        // (The bound only guards against a file system that never says so.)
        while let identity = FileIdentity(path: step), identity != chain.last, chain.count < 4096 {
            chain.append(identity)
            step += "/.."
        }
        holders = chain
    }

    /// The nearest folder of `path` that exists: `path` itself, or the nearest of its parents; nil when
    /// none does (not even the working directory, for a relative path).
    static func nearestExisting(_ path: String) -> String? {
        var existing = path.isEmpty ? "." : path
        while !isFolder(existing) {
            let next = parent(of: existing)
            guard next != existing else { return nil }
            existing = next
        }
        return existing
    }

    /// `path` less its last component: "a/b" → "a", "/a" → "/", "a" → ".", "/" → "/".
    /// On the text, with no `NSString` path method: `deletingLastPathComponent` trapped on a
    /// one-character path (`-o x` crashed kiln).
    static func parent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }
}
