public import ImageCore

extension PixelBuffer {
    /// The samples at 16 bits, an 8-bit sample v as 257·v: what PNG's bit
    /// replication makes of it, so two images with the same pixel values
    /// compare equal whatever depth each is held at (a 16-bit image stored at
    /// 8 bits decodes to 8-bit samples).
    public var samples16: [UInt16] {
        depth == .eight ? bytes.map { UInt16($0) * 257 } : bytes.withUnsafeBytes { raw in
            (0..<raw.count / 2).map { raw.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self) }
        }
    }

    /// Whether `other` has the same size and pixel values (at any depth).
    public func sameSamples(as other: PixelBuffer) -> Bool {
        width == other.width && height == other.height && samples16 == other.samples16
    }

    /// An image of `width × height` canonical pixels made from RGBA samples
    /// (`depth`'s range; stored host-endian).
    public init(width: Int, height: Int, depth: Depth, samples: [Int]) {
        precondition(samples.count == width * height * 4, "\(samples.count) samples for \(width)×\(height)")
        let bytes = depth == .eight ? samples.map { UInt8($0) } : samples.flatMap { sample in
            withUnsafeBytes(of: UInt16(sample)) { Array($0) }
        }
        self.init(width: width, height: height, depth: depth, bytes: bytes)
    }
}
