import Foundation
import PackagePlugin

/// Stamps the `kiln` executable with the commit it was built from, for
/// `kiln --version`. A build command whose inputs are the checkout's `HEAD`,
/// index and `HEAD` reflog and the package's sources: a commit, checkout,
/// reset, `git add` or edit touches one of them, and the stamp is made again
/// before `kiln` links. (It was a prebuild
/// command, which SwiftPM runs only when it plans the build again: `swift build
/// --product kiln` in a scratch folder built before kept the commit of that
/// earlier build — seen in a GPU check's report, 2026-11-27.) It rewrites its
/// output only when the commit changed, so an unchanged tree recompiles
/// nothing. Outside a git checkout (a source tarball) the commit reads
/// "unknown"; where `.git` is a file (a worktree), the stamp is made once.
@main
struct BuildInfo: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("generated")
        let stamp = output.appendingPathComponent("BuildCommit.swift")
        let git = context.package.directoryURL.appendingPathComponent(".git")
        // The package's own sources too, so an edit not yet added marks the stamp "-modified".
        let sources = context.package.targets.compactMap { $0.sourceModule }.flatMap { $0.sourceFiles.map(\.url) }
        let inputs = ["HEAD", "index", "logs/HEAD"].map { git.appendingPathComponent($0) }
            .filter { FileManager.default.fileExists(atPath: $0.path) } + sources
        // Plain POSIX sh and git from PATH: no tool of the package has to be built first.
        let script = #"""
            commit=$(git -C "$1" rev-parse --short=12 HEAD 2>/dev/null) || commit=unknown
            if [ "$commit" != unknown ] && [ -n "$(git -C "$1" status --porcelain --untracked-files=no 2>/dev/null | head -n 1)" ]; then
                commit="$commit-modified"
            fi
            mkdir -p "$(dirname "$2")"
            line="let buildCommit = \"$commit\""
            [ "$(cat "$2" 2>/dev/null)" = "$line" ] || printf '%s\n' "$line" > "$2"
            """#
        return [
            .buildCommand(
                displayName: "Stamping kiln with its commit",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "sh", context.package.directoryURL.path, stamp.path],
                inputFiles: inputs,
                outputFiles: [stamp]
            ),
        ]
    }
}
