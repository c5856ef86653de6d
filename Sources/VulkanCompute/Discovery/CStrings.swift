import Glibc

/// Calls `body` with NUL-terminated copies of `strings` that live for the call,
/// as Vulkan's `const char *const *` name lists expect.
func withCStringArray<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) throws -> R) rethrows -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    return try body(copies.map { UnsafePointer($0) })
}

/// The string in a fixed-size `char[N]` field imported as a tuple (e.g. `deviceName`).
func string<T>(fromCharTuple tuple: T) -> String {
    withUnsafeBytes(of: tuple) { bytes in
        let characters = bytes.prefix { $0 != 0 }
        return String(decoding: characters, as: UTF8.self)
    }
}
