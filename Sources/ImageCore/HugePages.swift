import Glibc

/// Large buffers in huge pages: Swift's twin of `kiln_advise_huge_pages`
/// (CKernels' `kiln_pages.h`, for buffers C allocates), which records the
/// measurements.
public enum HugePages {
    private static let size = 2 << 20

    /// Asks the kernel to back the 2 MiB-aligned part of `bytes` at `buffer`
    /// with transparent huge pages when first touched (`MADV_HUGEPAGE`). For a
    /// buffer not touched yet; nothing below 4 MiB; a hint, failures ignored.
    public static func advise(_ buffer: UnsafeMutableRawPointer, bytes: Int) {
        guard bytes >= 2 * size else { return }
        let address = UInt(bitPattern: buffer)
        let start = (address + UInt(size) - 1) & ~UInt(size - 1), end = (address + UInt(bytes)) & ~UInt(size - 1)
        guard end > start, let aligned = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(aligned, Int(end - start), MADV_HUGEPAGE)
    }
}
