import Compute
import Foundation
import PNGCodec
import Synchronization

/// Runs a planned batch: for each item, decode → render → encode → atomic write,
/// on `options.jobs` workers at once.
///
/// Each worker holds one image at a time, so memory is bounded by the job count
/// and the largest image, however long the batch. A failure is confined to its
/// item: it is reported and the batch goes on.
public final class ExportJob: Sendable {
    /// The job's options.
    public let options: ExportOptions
    /// What to export, in order.
    public let items: [ExportItem]
    /// Where outputs go.
    public let output: OutputDirectory
    private let renderer: Renderer
    private let onResult: @Sendable (FileResult) -> Void
    private let state = Mutex(Counts())
    private let stopReason = Mutex<String?>(nil)

    /// Running totals of a job, safe to read while it runs.
    public struct Counts: Sendable, Equatable {
        /// Items finished (written, skipped or failed).
        public var completed = 0
        /// Outputs written.
        public var written = 0
        /// Outputs skipped because they existed.
        public var skipped = 0
        /// Items that failed.
        public var failed = 0
        /// Decoded pixels of finished items.
        public var pixels = 0
        /// The input being worked on most recently.
        public var current: String?
    }

    /// A job over `items`; `onResult` is called once per item, from worker threads.
    public init(options: ExportOptions, items: [ExportItem], output: OutputDirectory,
                renderer: Renderer, onResult: @escaping @Sendable (FileResult) -> Void) {
        self.options = options
        self.items = items
        self.output = output
        self.renderer = renderer
        self.onResult = onResult
    }

    /// The totals so far.
    public var counts: Counts { state.withLock { $0 } }

    /// Why the job stopped on its own before the end (the required GPU failed), if it did.
    /// The item that was in progress is not counted: it is left for `kiln resume`.
    public var stoppedBecause: String? { stopReason.withLock { $0 } }

    /// Processes every item (or stops taking new ones once `shouldStop` returns
    /// true), blocking until the workers finish. Returns the final totals.
    @discardableResult
    public func run(shouldStop: @Sendable () -> Bool = { false }) -> Counts {
        let next = Atomic<Int>(0)
        let inputs = Set(items.compactMap { FileIdentity(path: $0.input) })
        DispatchQueue.concurrentPerform(iterations: max(1, min(options.jobs, items.count))) { _ in
            while !shouldStop() && stoppedBecause == nil {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < items.count else { return }
                state.withLock { $0.current = items[index].input }
                guard let result = process(items[index], inputs: inputs) else { return }
                state.withLock { counts in
                    counts.completed += 1
                    counts.pixels += result.pixels
                    switch result.status {
                    case .written: counts.written += 1
                    case .skipped: counts.skipped += 1
                    case .failed: counts.failed += 1
                    }
                }
                onResult(result)
            }
        }
        return counts
    }

    /// The item's result, or nil when the job must stop without finishing it.
    private func process(_ item: ExportItem, inputs: Set<FileIdentity>) -> FileResult? {
        let destination = output.url(of: item.output)
        var result = FileResult(input: item.input, output: destination, status: .failed)
        if let problem = item.problem {
            result.error = problem
            return result
        }
        if let existing = FileIdentity(path: destination), inputs.contains(existing) {
            result.error = "its output \(destination) is an input; inputs are never overwritten"
            return result
        }
        if output.exists(item.output) && !options.overwrite {
            result.status = .skipped
            return result
        }
        do {
            let decoded = try PNGDecoder.decode(contentsOf: item.input,
                                                limits: .init(maxPixels: options.maxPixels))
            result.pixels = decoded.pixelCount
            let rendered = try renderer.render(decoded)
            let bytes = try PNGEncoder.encode(rendered, options: .init(level: options.plan.level))
            try output.write(bytes, to: item.output, replace: options.overwrite)
            result.status = .written
            result.bytesWritten = bytes.count
        } catch let stop as RenderStop {
            stopReason.withLock { $0 = $0 ?? stop.description }
            return nil
        } catch {
            result.error = "\(error)"
        }
        return result
    }
}
