import Glibc

/// How `kiln` asks the C allocator to treat image-sized buffers.
enum MemoryPolicy {
    /// Serves every allocation of 1 MiB or more with its own `mmap`, returned to
    /// the system when freed. glibc's default raises that threshold after the first
    /// large free, after which decoded images and float buffers of different sizes
    /// come from the heap and fragment it: peak memory then grows with the length
    /// of the batch (measured: +15% from 20 to 200 W1 images with one worker). With
    /// a fixed threshold it stays flat (Scripts/bench-export), for a few percent of time.
    static func apply() {
        // <malloc.h> is not in Swift's Glibc module; mallopt and M_MMAP_THRESHOLD (-3)
        // are a stable part of glibc's ABI, so resolve the function at run time.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mmapThreshold: Int32 = -3
        _ = unsafeBitCast(symbol, to: Mallopt.self)(mmapThreshold, 1 << 20)
    }
}
