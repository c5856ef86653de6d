#if canImport(Glibc)
import Glibc
#endif

/// Large fresh buffers (a 24 MP float image is 384 MB) cost a page fault and a
/// cleared page per 4 KiB on first touch: a good part of a render's time.
/// Asking for transparent huge pages (2 MiB) before the first write cuts the
/// faults 512-fold where the kernel allows it (`madvise` mode); elsewhere it is a no-op.
package enum HugePages {
    /// Below this a buffer is not worth a system call.
    static let minimumBytes = 8 << 20

    /// Advises the kernel to back the 2 MiB-aligned interior of `bytes` bytes at `base` with huge pages.
    package static func advise(_ base: UnsafeMutableRawPointer, bytes: Int) {
        #if os(Linux)
        guard bytes >= minimumBytes else { return }
        let huge = 2 << 20
        let start = (Int(bitPattern: base) + huge - 1) & ~(huge - 1)
        let end = (Int(bitPattern: base) + bytes) & ~(huge - 1)
        guard end > start, let pointer = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(pointer, end - start, MADV_HUGEPAGE)
        #endif
    }

    /// `advise` for a typed buffer.
    package static func advise<T>(_ buffer: UnsafeMutableBufferPointer<T>) {
        guard let base = buffer.baseAddress else { return }
        advise(UnsafeMutableRawPointer(base), bytes: buffer.count * MemoryLayout<T>.stride)
    }
}
