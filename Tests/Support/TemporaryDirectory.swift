import Foundation

/// A fresh directory under the system temporary directory, removed when released.
public final class TemporaryDirectory {
    /// The directory's path.
    public let path: String

    /// Makes the directory.
    public init() throws {
        var template = Array((NSTemporaryDirectory() + "/kiln-test-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        path = String(cString: made)
    }

    /// `path/name`.
    public func join(_ name: String) -> String { path + "/" + name }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
