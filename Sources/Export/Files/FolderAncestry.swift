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
        while !Self.isDirectory(existing) {
            let parent = (existing as NSString).deletingLastPathComponent
            let next = parent.isEmpty ? "." : parent
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

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}
