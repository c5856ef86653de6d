import Foundation

/// The job's memory budget (`--memory`, SPEC §8): before starting an image, a
/// worker asks for its estimated working set and waits while admitting it
/// would exceed the budget; an image that alone cannot fit is refused. While
/// the kernel says memory is short (``MemoryPressure``), one image at a time.
// Unchecked: `used` is only touched under `condition` (an NSCondition: a pthread mutex TSan sees).
public final class MemoryBudget: @unchecked Sendable {
    /// The budget, in bytes.
    public let limit: Int
    /// What the process holds besides images (its code, runtime, the plan): measured at the start.
    public let reserved: Int
    /// Bytes of images admitted and not yet released. Guarded by `condition`.
    private var used = 0
    // A lock with a condition: a worker waits until released memory lets its image in.
    private let condition = NSCondition()
    private let pressure: MemoryPressure?

    /// A budget of `limit` bytes for the whole process, `reserved` of them already in use;
    /// `pressure`: the kernel's memory pressure, where it can be read.
    public init(limit: Int, reserved: Int = 0, pressure: MemoryPressure? = nil) {
        self.limit = max(1, limit)
        self.reserved = max(0, reserved)
        self.pressure = pressure
    }

    /// An image alone needs more than the whole budget.
    public struct TooLarge: Error, CustomStringConvertible {
        /// Its estimated working set.
        public let needed: Int
        /// What the process holds besides.
        public let reserved: Int
        /// The budget.
        public let limit: Int
        /// A `--memory` that admits it alone, rounded up: what it needs, what kiln holds, and the 2 MB by which what
        /// kiln holds at its start varies from run to run (25–27 MB). Before, the two figures said to the nearest MB
        /// added up short: "needs about 834 MB … beside the 26 MB" refused --memory 860M.
        public var enough: Int { reserved + needed + (2 << 20) }

        public var description: String {
            // A budget kiln's own memory already fills admits no image at all: said as such (before, "it needs about
            // 2.2 MB … beside the 83 MB kiln itself holds, more than --memory 60 MB allows" read as a contradiction).
            if reserved >= limit {
                return "it needs about \(ByteSize.text(needed)) of memory to render, and kiln itself already holds "
                    + "\(ByteSize.text(reserved)) (its code, libraries and plan), more than --memory \(ByteSize.budgetText(limit)) "
                    + "allows in all: no image fits; this one needs --memory \(ByteSize.text(enough, roundingUp: true)) at least"
            }
            return "it needs about \(ByteSize.text(needed)) of memory to render (beside the \(ByteSize.text(reserved)) kiln itself "
                + "holds), more than --memory \(ByteSize.budgetText(limit)) allows; --memory \(ByteSize.text(enough, roundingUp: true)) "
                + "would fit it alone"
        }
    }

    /// Waits until `bytes` fit beside what is admitted (and, while memory is short, until
    /// nothing else is admitted), then admits them; returns
    /// false when `cancelled` became true while waiting (nothing admitted).
    /// - Throws: `TooLarge` when `bytes` exceed the whole budget.
    public func admit(_ bytes: Int, cancelled: () -> Bool) throws -> Bool {
        guard reserved + bytes <= limit else { throw TooLarge(needed: bytes, reserved: reserved, limit: limit) }
        condition.lock()
        defer { condition.unlock() }
        while used > 0 && (reserved + used + bytes > limit || pressure?.isHigh == true) {
            if cancelled() { return false }
            // A bounded wait, so a stop is noticed even when nobody releases.
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
        }
        used += bytes
        return true
    }

    /// Gives back what `admit` took.
    public func release(_ bytes: Int) {
        condition.lock()
        used -= bytes
        condition.unlock()
        condition.broadcast()
    }
}
