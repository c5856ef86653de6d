import Foundation

/// The command-line image tools the format tests make inputs with and check
/// outputs against (ImageMagick, exiftool, libvips, libwebp's tools): decoders
/// independent of Kiln's. Scripts/setup installs them.
enum ImageTools {
    /// Whether `name` is an executable in /usr/bin or /usr/local/bin.
    static func has(_ name: String) -> Bool { path(name) != nil }

    private static func path(_ name: String) -> String? {
        ["/usr/local/bin/", "/usr/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `name` with `arguments`; throws when it is missing or fails.
    @discardableResult
    static func run(_ name: String, _ arguments: [String]) throws -> ChildProcess.Outcome {
        guard let tool = path(name) else { throw Failure(message: "\(name) is not installed") }
        let outcome = try ProcessRunner.run(tool, arguments)
        guard outcome.status == 0 else { throw Failure(message: "\(name) \(arguments): \(outcome.stderr)") }
        return outcome
    }

    /// ImageMagick's PSNR of `a` against `b` in dB (infinity when they are identical).
    static func psnr(_ a: String, _ b: String) throws -> Double {
        guard let tool = path("compare") else { throw Failure(message: "compare is not installed") }
        // compare exits 1 when the images differ, 2 on an error; the figure is on stderr.
        let outcome = try ProcessRunner.run(tool, ["-metric", "PSNR", a, b, "null:"])
        guard outcome.status != 2, let first = outcome.stderr.split(separator: " ").first else {
            throw Failure(message: "compare \(a) \(b): \(outcome.stderr)")
        }
        return first == "inf" ? .infinity : try Double(String(first)) ?? { throw Failure(message: outcome.stderr) }()
    }

    /// `identify -format`'s answer for `path` ("%w %h %m": "300 200 JPEG").
    static func identify(_ path: String, _ format: String = "%w %h %m") throws -> String {
        try run("identify", ["-format", format, path]).stdout
    }

    /// The 8-bit RGB samples of pixel (x, y) of `path`, as ImageMagick decodes it.
    static func pixel(_ path: String, _ x: Int, _ y: Int) throws -> [Int] {
        let channels = ["r", "g", "b"].map { "%[fx:int(255*p{\(x),\(y)}.\($0)+0.5)]" }.joined(separator: " ")
        return try run("convert", [path, "-format", channels, "info:"]).stdout.split(separator: " ").compactMap { Int($0) }
    }

    /// A tool's failure.
    struct Failure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
