import Foundation
import PackagePlugin

/// Stamps the `kiln` executable with the commit it was built from, for
/// `kiln --version`. A prebuild command runs before every build, so the stamp
/// follows checkouts and commits; it rewrites its output only when the commit
/// changed, so an unchanged tree recompiles nothing. Outside a git checkout
/// (a source tarball) the commit reads "unknown".
@main
struct BuildInfo: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("generated")
        // Plain POSIX sh and git from PATH: no tool of the package has to be built first.
        let script = #"""
            commit=$(git -C "$1" rev-parse --short=12 HEAD 2>/dev/null) || commit=unknown
            if [ "$commit" != unknown ] && [ -n "$(git -C "$1" status --porcelain --untracked-files=no 2>/dev/null | head -n 1)" ]; then
                commit="$commit-modified"
            fi
            mkdir -p "$2"
            line="let buildCommit = \"$commit\""
            [ "$(cat "$2/BuildCommit.swift" 2>/dev/null)" = "$line" ] || printf '%s\n' "$line" > "$2/BuildCommit.swift"
            """#
        return [
            .prebuildCommand(
                displayName: "Stamping kiln with its commit",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "sh", context.package.directoryURL.path, output.path],
                outputFilesDirectory: output
            ),
        ]
    }
}
