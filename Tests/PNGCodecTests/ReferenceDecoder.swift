import Foundation
import ImageCore
import KilnTestSupport
import PNGCodec

/// Canonical samples of every valid PngSuite file according to pypng, an
/// independent decoder, computed once per test process by `Scripts/pngref.py`.
struct ReferenceImage {
    var width: Int
    var height: Int
    var depth: Int
    /// RGBA samples; 16-bit ones big-endian.
    var samples: [UInt8]
}

enum ReferenceDecoder {
    /// PngSuite's file names → reference images, or why the reference could not be made.
    static let images: Result<[String: ReferenceImage], ReferenceError> = decode(folder: Corpus.pngSuite.path)

    struct ReferenceError: Error, CustomStringConvertible {
        var description: String
    }

    /// The reference images of the PNGs in `folder` (all but x*.png), by file name.
    static func decode(folder: String) -> Result<[String: ReferenceImage], ReferenceError> {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("kiln-pngref-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let script = URL(fileURLWithPath: Fixtures.repository).appendingPathComponent("Scripts/pngref.py").path
        let run: ProcessResult
        do {
            run = try ProcessResult.run("/usr/bin/env", ["python3", script, folder, output.path])
        } catch {
            return .failure(ReferenceError(description: "cannot run python3 (\(error)); the reference decoder needs python3 with pypng"))
        }
        guard run.status == 0 else {
            return .failure(ReferenceError(description: """
                Scripts/pngref.py failed (exit \(run.status)); it needs python3 with pypng \
                (python3 -m pip install pypng): \(run.output)
                """))
        }
        do {
            let index = try String(contentsOf: output.appendingPathComponent("index.tsv"), encoding: .utf8)
            var images: [String: ReferenceImage] = [:]
            for line in index.split(separator: "\n") {
                let fields = line.split(separator: "\t").map(String.init)
                let samples = try Data(contentsOf: output.appendingPathComponent(
                    String(fields[0].dropLast(4)) + ".rgba"))
                images[fields[0]] = ReferenceImage(
                    width: Int(fields[1])!, height: Int(fields[2])!, depth: Int(fields[3])!, samples: [UInt8](samples))
            }
            return .success(images)
        } catch {
            return .failure(ReferenceError(description: "cannot read pngref.py output: \(error)"))
        }
    }
}

/// Exit status and combined output of a finished child process.
struct ProcessResult {
    var status: Int32
    var output: String

    /// Runs `executable` with `arguments` to completion.
    static func run(_ executable: String, _ arguments: [String]) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ProcessResult(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }
}
