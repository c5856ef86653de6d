import Locking

/// Where an encode reports how far it is: the fraction of its rows compressed
/// (0…1), never decreasing, from whichever thread compressed them. An export
/// counts it as work done, so a slow encode (zlib at level 9 on a giant image)
/// keeps the job's progress moving and its stall watchdog quiet.
public final class EncodeProgress: Sendable {
    private let state = Locked<(fraction: Double, segments: Int)>((0, 0))
    private let handler: @Sendable (Double) -> Void

    /// Calls `handler` with each new fraction (under a lock: calls never overlap or go backwards).
    public init(_ handler: @escaping @Sendable (Double) -> Void) {
        self.handler = handler
    }

    /// Reports `fraction` of the rows done, if it is more than reported before.
    public func report(_ fraction: Double) {
        state.withLock { raise(&$0.fraction, to: fraction) }
    }

    /// Reports one more of `count` row segments compressed (they finish in any order).
    public func segmentDone(of count: Int) {
        state.withLock { state in
            state.segments += 1
            raise(&state.fraction, to: Double(state.segments) / Double(count))
        }
    }

    private func raise(_ reported: inout Double, to fraction: Double) {
        guard fraction > reported else { return }
        reported = fraction
        handler(fraction)
    }
}
