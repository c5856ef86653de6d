@testable import Export
import Foundation
import Testing

/// The time a job spends paused (``PauseClock``), which its rates and estimates leave out: a pause runs from
/// the first cause that holds the job to the last that lets it go.
@Suite struct PauseClockTests {
    @Test func aPauseRunsFromTheFirstCauseToTheLast() {
        let clock = PauseClock()
        #expect(!clock.isPaused && clock.paused == .zero)
        clock.set(.view, paused: true)
        Thread.sleep(forTimeInterval: 0.05)
        clock.set(.process, paused: true)
        clock.set(.view, paused: false)
        #expect(clock.isPaused, "the process is still stopped")
        Thread.sleep(forTimeInterval: 0.05)
        clock.set(.process, paused: false)
        clock.set(.process, paused: false)  // a second resume changes nothing
        let paused = clock.paused
        #expect(!clock.isPaused && paused >= .milliseconds(100), "\(paused)")
        Thread.sleep(forTimeInterval: 0.05)
        #expect(clock.paused == paused, "no pause counted while running")
    }
}
