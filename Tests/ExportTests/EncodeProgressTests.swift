import Foundation
import ImageCore
import KilnTestSupport
import Testing

/// An encoder that reports in steps and says nothing for long stretches between them (libwebp's last stage): the CPU
/// time its thread spends is reported within the step, never reaching the next, and a thread that spends none
/// (blocked) reports nothing.
@Suite struct EncodeProgressTests {

    /// CPU time spent on this thread, in seconds.
    private func cpuSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    @Test func aSilentEncoderThatWorksMovesWithinItsStep() {
        let seen = Collected<Double>()
        let progress = EncodeProgress { seen.append($0) }
        progress.report(0.42)
        // Two seconds of CPU on this thread (however long that takes on a loaded machine), saying nothing.
        let spun = progress.reportingWork(below: 0.01) { () -> Double in
            let start = cpuSeconds()
            var sum = 0.0
            while cpuSeconds() - start < 2 { sum += sin(sum + 1) }
            return sum
        }
        #expect(spun.isFinite)
        let reported = seen.all
        #expect(reported.first == 0.42)
        let filled = reported.dropFirst()
        #expect(filled.count >= 2, "reported \(reported)")
        #expect(filled.allSatisfy { $0 > 0.42 && $0 < 0.43 }, "within the step: \(reported)")
        #expect(zip(filled, filled.dropFirst()).allSatisfy { $0 < $1 }, "rising: \(reported)")
        // The encoder's own next report stands above all of it.
        progress.report(0.43)
        #expect(seen.all.last == 0.43)
    }

    /// The first tick counts the CPU time since the call began: it only took its mark, so a work of under a second
    /// (a PNG segment among more images than cores) said nothing, and a short --stall-timeout stopped its job.
    @Test func theFirstTickCountsFromTheCallsStart() {
        let seen = Collected<Double>()
        let progress = EncodeProgress { seen.append($0) }
        let began = ContinuousClock.now
        let inside = progress.reportingWork(below: 0.01) { () -> Int in
            var sum = 0.0
            // Working for 0.7 s of wall time: ticks at 0.25 and 0.5 s come while it works.
            while ContinuousClock.now - began < .milliseconds(700) { sum += sin(sum + 1) }
            return seen.all.count + (sum.isNaN ? 1 : 0)
        }
        #expect(inside > 0, "nothing reported while working: \(seen.all)")
    }

    @Test func aBlockedEncoderReportsNothing() {
        let seen = Collected<Double>()
        let progress = EncodeProgress { seen.append($0) }
        progress.reportingWork(below: 0.01) { Thread.sleep(forTimeInterval: 1.5) }
        #expect(seen.all.isEmpty)
    }
}
