import Foundation
import KilnTestSupport
import Testing

/// Where the tests find the repository, its fixtures and the built `kiln`.
enum Paths {
    /// The repository root (this file is Tests/KilnCLITests/Support/Paths.swift).
    static let repository: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// PngSuite, kept in the repository (`Tests/Fixtures/PngSuite`).
    static let pngSuite = Fixtures.pngSuite

    /// SampleData/ of the repository.
    static let sampleData = repository + "/SampleData"

    /// The `kiln` executable built beside this test bundle (same build folder).
    static let kiln: String = {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var dir = exe.deletingLastPathComponent()
        // The test runner is …/debug/KilnPackageTests.xctest (a file on Linux).
        while !FileManager.default.isExecutableFile(atPath: dir.appendingPathComponent("kiln").path),
              dir.path != "/" {
            dir.deleteLastPathComponent()
        }
        return dir.appendingPathComponent("kiln").path
    }()

    /// The PNG files of a directory, sorted.
    static func pngs(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".png") }.sorted()
    }
}

/// Runs the built `kiln` with arguments. Unless `environment` names one, each run
/// gets its own machine-slot directory, so tests running in parallel never queue
/// behind each other (the queue tests share one on purpose), and the test process's
/// own cache folder (`XDG_CACHE_HOME`: ``MadeCache``'s records), never the user's.
func kiln(_ arguments: [String], stdin: String = "", environment: [String: String] = [:],
          timeout: Duration = .seconds(300)) throws -> ChildProcess.Outcome {
    try startKiln(arguments, stdin: stdin, environment: environment).wait(timeout: timeout)
}

/// Runs the built kiln as a user a mode such as 000 denies: as root (who reads through any mode), as
/// `nobody` through util-linux `setpriv`; as anyone else, as that user, whom the mode alone denies.
/// Either way the denial is real, not simulated.
func kilnDenied(_ arguments: [String]) throws -> ChildProcess.Outcome {
    guard geteuid() == 0 else { return try kiln(arguments) }
    let setpriv = "/usr/bin/setpriv"
    try #require(FileManager.default.isExecutableFile(atPath: setpriv),
                 "as root the test needs setpriv (util-linux) to drop privileges")
    // The other user makes its slot folder in a folder anyone may write to, as the temporary folder.
    let anyone = testScratch + "/anyone"
    try? FileManager.default.createDirectory(atPath: anyone, withIntermediateDirectories: true)
    #expect(chmod(anyone, 0o1777) == 0)
    return try ChildProcess(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", Paths.kiln] + arguments,
                            environment: ["KILN_RUNTIME_DIR": anyone + "/slots-" + UUID().uuidString])
        .wait(timeout: .seconds(120))
}

/// This test process's own folder in the temporary folder, removed when the process exits:
/// its kiln runs' machine-slot folders and cache, and the inputs and references made once.
/// (Each run's slot folder had been left in the temporary folder: 15,000 after a day of runs.)
let testScratch: String = {
    let dir = NSTemporaryDirectory() + "/kiln-tests-\(getpid())"
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    // Open to other users whatever the umask: JournalAccessTests runs kiln as one.
    chmod(dir, 0o755)
    atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "/kiln-tests-\(getpid())") }
    return dir
}()

/// The cache folder of this test process's kiln runs.
let testCache = testScratch + "/cache"

/// Starts the built `kiln` in the background (see ``kiln(_:stdin:environment:timeout:)``).
func startKiln(_ arguments: [String], stdin: String = "", environment: [String: String] = [:],
               directory: String? = nil) throws -> ChildProcess {
    var env = environment
    if env["KILN_RUNTIME_DIR"] == nil {
        env["KILN_RUNTIME_DIR"] = testScratch + "/slots-" + UUID().uuidString
    }
    if env["XDG_CACHE_HOME"] == nil { env["XDG_CACHE_HOME"] = testCache }
    return try ChildProcess(Paths.kiln, arguments, stdin: stdin, environment: env, directory: directory)
}
