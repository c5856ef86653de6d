import Glibc

/// How `kiln` asks the C allocator to treat image-sized buffers.
enum MemoryPolicy {
    /// Serves every allocation of 1 MiB or more with its own `mmap`, returned to
    /// the system when freed. glibc's default raises that threshold after the first
    /// large free, after which decoded images and float buffers of different sizes
    /// come from the heap and fragment it: peak memory then grows with the length
    /// of the batch (measured: +15% from 20 to 200 W1 images with one worker). With
    /// a fixed threshold it stays flat (Scripts/bench-export), for a few percent of time.
    ///
    /// Fixing that threshold also fixes glibc's trim threshold, at 128 KiB: each
    /// thread's arena then gave back its free top with `madvise` as soon as 128 KiB
    /// lay free, and faulted the pages in again for the next strip (899 calls, 0.7–0.9 s
    /// of system time in a re-encode of the 20000×20000 gradient). At 8 MiB: 0.06 s,
    /// the re-encode 3.85 → 2.92 s, blur σ 4 of the photo 0.45 → 0.13 s of system
    /// time, for 2–3 MB more peak RSS (W1 with 2 jobs: +1–5 MB).
    ///
    /// The arenas are bounded at the core count: glibc gives each thread an arena of its own (up to 8
    /// a core), each keeping up to the trim threshold free, so memory grew with `--jobs` above the
    /// cores (`--jobs 64` of small images: 166 MB, 138 MB with 2 arenas, against 102 MB at `--jobs 2`).
    /// Image-sized buffers are `mmap`s, outside the arenas: the threads share them only for small ones.
    static func apply() {
        // <malloc.h> is not in Swift's Glibc module; mallopt, M_TRIM_THRESHOLD (-1) and M_MMAP_THRESHOLD (-3)
        // are a stable part of glibc's ABI, so resolve the function at run time.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        let trimThreshold: Int32 = -1, mmapThreshold: Int32 = -3, arenaMax: Int32 = -8
        _ = mallopt(mmapThreshold, 1 << 20)
        _ = mallopt(trimThreshold, 8 << 20)
        _ = mallopt(arenaMax, Int32(clamping: max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
    }
}
