internal import Compute
internal import CKernels
import Foundation

/// blur — a separable Gaussian: weights `exp(−k²/2σ²)` for `|k| ≤ radius =
/// ⌈3σ⌉`, normalized; pixels past the edges repeat the edge pixel.
/// Premultiplied input/output are flags, as for `ResampleKernel`.
///
/// On Vulkan it is two passes, one per axis: `Shaders/blur_x.comp`,
/// `Shaders/blur_y.comp` (shared-memory windows). On the CPU both axes run in
/// the second pass, fused (the first pass forwards its input): each thread
/// sweeps a strip of columns top to bottom, blurring each source row of the
/// strip horizontally into a ring of the last 2·radius + 1 rows (which stays
/// in cache), and each output row vertically from that ring — no intermediate
/// image, so half the memory traffic and page faults of two separate passes.
enum BlurKernel {
    static let horizontal = KernelID("blur_x")
    static let vertical = KernelID("blur_y")

    /// The window's half-width for `sigma`.
    static func radius(sigma: Double) -> Int {
        max(1, Int((3 * sigma).rounded(.up)))
    }

    /// The normalized weights of offsets −radius…radius.
    static func weights(sigma: Double) -> [Float] {
        let radius = radius(sigma: sigma)
        let raw = (-radius...radius).map { Foundation.exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = raw.reduce(0, +)
        return raw.map { Float($0 / total) }
    }

    /// Adds the two passes that blur `input` (the builder's current size) and
    /// returns the result; `current` is unchanged.
    static func add(_ input: ImageRef, sigma: Double, premultiplyInput: Bool, unpremultiplyOutput: Bool,
                    to builder: inout PassBuilder) -> ImageRef {
        let width = builder.width, height = builder.height
        let radius = radius(sigma: sigma)
        let weights = weights(sigma: sigma)
        let floats = [Float(sigma)]
        // The CPU twin of blur_x is the identity (the CPU leaves it out): blur_y's CPU kernel does both axes.
        let rows = builder.add(RenderPass(kernel: horizontal, width: width, height: height,
                                          inputs: [PassInput(input) { $0.expanded(dx: radius, dy: 0) }],
                                          ints: [0, Int32(radius), premultiplyInput ? 1 : 0, 0], floats: floats,
                                          forwardsOnCPU: true) { inputs, output in
            for y in output.rows { output.row(y).update(from: inputs[0].row(y), count: width) }
        })
        return builder.add(RenderPass(kernel: vertical, width: width, height: height,
                                      inputs: [PassInput(rows) { $0.expanded(dx: 0, dy: radius) }],
                                      ints: [0, Int32(radius), 0, unpremultiplyOutput ? 1 : 0], floats: floats,
                                      cpuRun: {
            let rings = Rings()
            return { inputs, output in
                run(inputs[0], height: height, weights: weights, premultiplyInput: premultiplyInput,
                    unpremultiplyOutput: unpremultiplyOutput, output: output, rings: rings)
            }
        }, minimumChunkRows: 2 * radius + 1) { inputs, output in
            run(inputs[0], height: height, weights: weights, premultiplyInput: premultiplyInput,
                unpremultiplyOutput: unpremultiplyOutput, output: output, rings: nil)
        })
    }

    /// Columns per strip: a ring of 2·radius + 1 rows of it stays in the core's
    /// L2 cache (49 × 128 × 16 bytes = 98 KB at σ 8); narrower for large radii.
    static func stripWidth(radius: Int) -> Int {
        max(16, min(128, (1 << 20) / ((2 * radius + 1) * MemoryLayout<SIMD4<Float>>.stride)))
    }

    /// The rings of one run (one image), kept from one chunk to the next: each
    /// tile's ring of horizontally blurred rows, and the row it fills next. A
    /// chunk that starts where the one before ended continues its tiles' rings
    /// instead of blurring 2·radius rows across again: with 8 MiB chunks (32 rows
    /// of the 16000×9000 photo, radius 12 at σ 4) that start-up had been 75 % more
    /// horizontal work. Kept only while a ring (2·radius + 1 rows) is no taller
    /// than the chunk, so they hold at most a chunk's rows more than a run without;
    /// the pass asks for chunks that tall (`minimumChunkRows`).
    final class Rings: @unchecked Sendable {
        // Unchecked: `prepare` replaces the tiles only between calls (one thread); during a
        // call each tile is read and written by the one thread that runs it.
        private(set) var tiles = UnsafeMutableBufferPointer<Tile>(start: nil, count: 0)
        private var ringPixels = 0

        /// One tile's ring (2·radius + 1 rows of its columns) and the logical row it fills next.
        struct Tile {
            var ring: UnsafeMutablePointer<SIMD4<Float>>
            var next: Int
            /// The last row filled: its source row (clamped) and logical row.
            var last: (source: Int, row: Int)
        }

        /// `count` tiles of rings of `ringPixels`, kept when the layout is the same as the last call's.
        func prepare(count: Int, ringPixels: Int) -> UnsafeMutableBufferPointer<Tile> {
            guard count != tiles.count || ringPixels != self.ringPixels else { return tiles }
            release()
            tiles = .allocate(capacity: count)
            for i in 0..<count {
                tiles.initializeElement(at: i, to: Tile(ring: .allocate(capacity: ringPixels), next: .min, last: (-1, 0)))
            }
            self.ringPixels = ringPixels
            return tiles
        }

        private func release() {
            for tile in tiles { tile.ring.deallocate() }
            tiles.deallocate()
            tiles = UnsafeMutableBufferPointer(start: nil, count: 0)
        }

        deinit { release() }
    }

    /// The CPU kernel: both axes of `source` (an image `height` rows tall), for the rows of `output`,
    /// continuing the `rings` of the chunk above where there are any.
    static func run(_ source: FloatRows, height: Int, weights: [Float], premultiplyInput: Bool,
                    unpremultiplyOutput: Bool, output: FloatRows, rings: Rings?) {
        let width = output.width
        let radius = weights.count / 2
        let strip = min(width, stripWidth(radius: radius))
        let strips = (width + strip - 1) / strip
        // Tall bands keep the ring's start-up (2·radius rows) small; several
        // bands only when there are too few strips to share between the cores.
        let cores = ParallelLoop.threads
        let bands = max(1, min((4 * cores + strips - 1) / strips, output.height / max(64, 8 * weights.count)))
        let band = (output.height + bands - 1) / bands
        let ringPixels = (2 * radius + 1) * strip
        nonisolated(unsafe) let kept = rings.flatMap { rings in
            2 * radius + 1 <= output.height ? rings.prepare(count: strips * bands, ringPixels: ringPixels) : nil
        }
        weights.withUnsafeBufferPointer { weights in
            nonisolated(unsafe) let weights = weights.baseAddress!
            ParallelLoop.forEachChunk(strips * bands, itemCost: band * strip * 2 * (radius + 1)) { tiles in
                let sweep = Sweep(weights: weights, radius: radius, strip: strip, source: source,
                                  width: width, height: height, output: output,
                                  premultiply: premultiplyInput, unpremultiply: unpremultiplyOutput)
                // Without rings kept across chunks, one ring serves this thread's tiles, each from empty.
                var own = kept == nil ? Rings.Tile(ring: .allocate(capacity: ringPixels), next: .min, last: (-1, 0)) : nil
                defer {
                    sweep.deallocate()
                    own?.ring.deallocate()
                }
                for tile in tiles {
                    let left = (tile % strips) * strip, top = output.top + (tile / strips) * band
                    let columns = left..<min(left + strip, width), rows = top..<min(top + band, output.rows.upperBound)
                    if let kept {
                        sweep.run(columns: columns, rows: rows, tile: &kept[tile])
                    } else {
                        own!.next = .min
                        sweep.run(columns: columns, rows: rows, tile: &own!)
                    }
                }
            }
        }
    }

    /// One thread's working state: the ring of horizontally blurred rows and a padded source row.
    private struct Sweep {
        let weights: UnsafePointer<Float>
        let radius: Int
        let strip: Int
        let source: FloatRows
        let width: Int
        let height: Int
        let output: FloatRows
        let premultiply: Bool
        let unpremultiply: Bool
        /// The source row's columns the strip reads, premultiplied, edges repeated.
        let padded: UnsafeMutablePointer<SIMD4<Float>>
        /// The ring's rows in the order an output row reads them.
        let window: UnsafeMutablePointer<UnsafeRawPointer?>

        init(weights: UnsafePointer<Float>, radius: Int, strip: Int, source: FloatRows, width: Int,
             height: Int, output: FloatRows, premultiply: Bool, unpremultiply: Bool) {
            self.weights = weights
            self.radius = radius
            self.strip = strip
            self.source = source
            self.width = width
            self.height = height
            self.output = output
            self.premultiply = premultiply
            self.unpremultiply = unpremultiply
            padded = .allocate(capacity: strip + 2 * radius)
            window = .allocate(capacity: 2 * radius + 1)
        }

        func deallocate() {
            padded.deallocate()
            window.deallocate()
        }

        private var count: Int { 2 * radius + 1 }

        /// Blurs `columns` × `rows` of the output with `tile`'s ring (2·radius + 1 rows of
        /// `strip` pixels; logical row j lives in slot j mod the row count), continuing it
        /// when it was last filled up to the row above `rows.lowerBound + radius`.
        func run(columns: Range<Int>, rows: Range<Int>, tile: inout Rings.Tile) {
            let ring = tile.ring, count = count, strip = strip
            func slot(_ row: Int) -> UnsafeMutablePointer<SIMD4<Float>> {
                // Rows start at −radius at most: offset by a multiple of the count to stay ≥ 0.
                ring + ((row + count) % count) * strip
            }
            var last = tile.last
            // The ring holds rows j − radius … j + radius after filling row j + radius.
            func fill(_ row: Int) {
                let clamped = min(max(row, 0), height - 1)
                if clamped == last.source {
                    // Past an edge the source row repeats: so does its blur.
                    slot(row).update(from: slot(last.row), count: columns.count)
                } else {
                    blurRow(clamped, columns: columns, into: slot(row))
                }
                last = (clamped, row)
            }
            if tile.next != rows.lowerBound + radius {
                last = (-1, 0)
                for row in (rows.lowerBound - radius)..<(rows.lowerBound + radius) { fill(row) }
            }
            for y in rows {
                fill(y + radius)
                for k in 0..<count { window[k] = UnsafeRawPointer(slot(y - radius + k)) }
                blurColumns(columns.count, into: output.row(y) + columns.lowerBound)
            }
            tile.next = rows.upperBound + radius
            tile.last = last
        }

        /// The horizontal blur of source row `row` at `columns`, premultiplied, into `out`.
        private func blurRow(_ row: Int, columns: Range<Int>, into out: UnsafeMutablePointer<SIMD4<Float>>) {
            let line = source.row(row)
            let first = columns.lowerBound - radius, n = columns.count + 2 * radius
            // Entries [inside) of `padded` are source columns; those before and after repeat the edges.
            let inside = max(0, -first)..<min(n, width - first)
            // Opaque pixels premultiply to themselves: away from the edges the row is read where it lies.
            let asIs = !premultiply || source.opaque
            if asIs && inside.count == n {
                kiln_blur_row(line + first, columns.count, weights, radius, out)
                return
            }
            if asIs {
                (padded + inside.lowerBound).update(from: line + first + inside.lowerBound, count: inside.count)
            } else {
                kiln_premultiply(line + first + inside.lowerBound, inside.count, padded + inside.lowerBound)
            }
            for i in 0..<inside.lowerBound { padded[i] = padded[inside.lowerBound] }
            for i in inside.upperBound..<n { padded[i] = padded[inside.upperBound - 1] }
            kiln_blur_row(padded, columns.count, weights, radius, out)
        }

        /// The vertical blur of the ring's rows (`window`) into `n` output pixels at `out`.
        private func blurColumns(_ n: Int, into out: UnsafeMutablePointer<SIMD4<Float>>) {
            kiln_blur_columns(window, n, weights, radius, unpremultiply ? 1 : 0, out)
        }
    }
}
