/// Where an encoder's bytes go, in order, as it makes them (SPEC §8: the
/// encoder writes to the staged output file as rows are compressed): a file,
/// or memory.
public protocol EncodedOutput: AnyObject {
    /// Appends `bytes`.
    /// - Throws: the destination's error (a full disk, an I/O error).
    func write(_ bytes: UnsafeRawBufferPointer) throws
}

extension EncodedOutput {
    /// Appends every byte of `bytes`.
    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }
}

/// An output collected in memory: for a file checked before it is kept
/// (`--in-place`), compared with an existing one, or used by a program.
public final class MemoryOutput: EncodedOutput {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    /// An empty output.
    public init() {}

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        self.bytes.append(contentsOf: bytes)
    }
}
