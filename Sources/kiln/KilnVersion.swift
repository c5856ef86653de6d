import Foundation

/// What `kiln --version` prints: the release, the commit it was built from
/// (stamped by the BuildInfo plugin), the Swift compiler, and the backends.
enum KilnVersion {
    /// The release number (semantic versioning).
    static let release = "0.8.0"

    /// The Swift compiler that built this binary, from compile-time conditions.
    static let swift: String = {
        #if compiler(>=6.4)
        "6.4 or later"
        #elseif compiler(>=6.3)
        "6.3"
        #elseif compiler(>=6.2)
        "6.2"
        #elseif compiler(>=6.1)
        "6.1"
        #else
        "6.0"
        #endif
    }()

    /// Backends in this binary. Vulkan is always compiled in; its loader is
    /// opened at run time, so `kiln devices` says whether it can be used here.
    static let backends = "cpu, vulkan (loader opened at run time)"

    /// The whole text, e.g. "kiln 0.8.0 (commit 1a2b3c4d5e6f, Swift 6.3, backends: cpu, vulkan …)".
    static var description: String {
        "kiln \(release) (commit \(buildCommit), Swift \(swift), \(architecture), backends: \(backends))"
    }

    /// The CPU architecture the binary was built for.
    private static let architecture: String = {
        #if arch(x86_64)
        "x86_64"
        #elseif arch(arm64)
        "arm64"
        #else
        "other architecture"
        #endif
    }()
}
