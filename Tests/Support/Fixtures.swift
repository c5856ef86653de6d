import Foundation

/// Files the tests read from the repository itself (`Tests/Fixtures/`), never from
/// outside it: a bare clone must pass its tests.
///
/// Every fixture is checked before use, so a missing, empty or altered file fails
/// the test that needs it with a message naming the path (a ``MissingFixture``
/// error) instead of crashing the test process further on.
public enum Fixtures {
    /// The repository root (this file is `Tests/Support/Fixtures.swift`).
    public static let repository: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The PngSuite conformance images with their LICENSE (`Tests/Fixtures/PngSuite`).
    public static let pngSuite = repository + "/Tests/Fixtures/PngSuite"

    /// A JPEG whose entropy-coded data holds a bad Huffman code (`Tests/Fixtures/JPEG/README.md` says how it was made),
    /// checked to exist.
    public static func damagedJPEG() throws -> String {
        let path = repository + "/Tests/Fixtures/JPEG/bad-huffman-code.jpg"
        try requireFile(path)
        return path
    }

    /// The checksum list committed beside PngSuite: the names the suite must hold.
    static let pngSuiteManifest = pngSuite + "/SHA256SUMS"

    /// The 175 PngSuite file names, sorted, after checking that each one listed in
    /// `SHA256SUMS` is present and non-empty. Throws ``MissingFixture`` otherwise.
    public static func pngSuiteFiles() throws -> [String] {
        guard let manifest = try? String(contentsOfFile: pngSuiteManifest, encoding: .utf8) else {
            throw MissingFixture(path: pngSuiteManifest, reason: "the PngSuite manifest is missing or unreadable")
        }
        // Each line is "<sha256>  <name>".
        let names = manifest.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
        guard !names.isEmpty else {
            throw MissingFixture(path: pngSuiteManifest, reason: "the PngSuite manifest lists no files")
        }
        for name in names {
            try requireFile(pngSuite + "/" + name)
        }
        return names.sorted()
    }

    /// The 161 valid PngSuite files (all but `x*.png`).
    public static func validPngSuiteFiles() throws -> [String] { try pngSuiteFiles().filter { !$0.hasPrefix("x") } }

    /// The 14 deliberately corrupt PngSuite files (`x*.png`).
    public static func corruptPngSuiteFiles() throws -> [String] { try pngSuiteFiles().filter { $0.hasPrefix("x") } }

    /// The full path of one PngSuite file, checked to exist and be non-empty.
    public static func pngSuitePath(_ name: String) throws -> String {
        let path = pngSuite + "/" + name
        try requireFile(path)
        return path
    }

    /// Throws ``MissingFixture`` naming `path` unless it is a non-empty regular file.
    public static func requireFile(_ path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw MissingFixture(path: path, reason: "the file does not exist")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size > 0 else { throw MissingFixture(path: path, reason: "the file is empty") }
    }
}

/// A test fixture that is not there (or is empty): names the path and the reason.
public struct MissingFixture: Error, CustomStringConvertible {
    /// The fixture's path.
    public let path: String
    /// Why it cannot be used.
    public let reason: String

    /// "missing test fixture <path>: <reason>".
    public var description: String { "missing test fixture \(path): \(reason)" }
}
