import Foundation
import Testing

/// The LifecycleProbe program, started for one test, with its output captured in a file.
final class ProbeProcess {
    let process = Process()
    private let outputURL: URL

    /// Finds the probe next to the running test binary: the build directory of this
    /// configuration, whatever the scratch path.
    static func executable() -> URL? {
        var directories: [URL] = []
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append(URL(fileURLWithPath: path).deletingLastPathComponent())
        }
        directories.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        directories.append(Bundle.main.bundleURL.deletingLastPathComponent())
        return directories.lazy
            .map { $0.appendingPathComponent("LifecycleProbe") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    init(_ arguments: [String]) throws {
        let executable = try #require(Self.executable(), "LifecycleProbe not found next to the test binary")
        outputURL = FileManager.default.temporaryDirectory
            .appendingPathComponent("lifecycle-probe-\(UUID().uuidString).out")
        guard FileManager.default.createFile(atPath: outputURL.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: outputURL)
    }

    var lines: [String] {
        let text = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// The values of every `progress N` line, in order.
    var progressValues: [Int] {
        lines.compactMap { $0.hasPrefix("progress ") ? Int($0.dropFirst("progress ".count)) : nil }
    }

    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for a line satisfying `matches`; returns it, or nil after the timeout.
    func waitForLine(timeout: Duration = .seconds(30), _ matches: @escaping (String) -> Bool) async -> String? {
        let deadline = ContinuousClock.now + timeout
        repeat {
            if let line = lines.first(where: matches) { return line }
            try? await Task.sleep(for: .milliseconds(10))
        } while ContinuousClock.now < deadline
        return lines.first(where: matches)
    }

    /// Waits for the probe to exit; returns its status, or nil after the timeout.
    func waitForExit(timeout: Duration = .seconds(30)) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// Waits until the kernel reports the process stopped; false after the timeout.
    func waitUntilStopped(timeout: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !isStopped, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return isStopped
    }

    /// Whether the kernel reports the process as stopped (state `T` in /proc/PID/stat).
    var isStopped: Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("T")
    }
}
