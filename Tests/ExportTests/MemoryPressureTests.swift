import Export
import Foundation
import KilnTestSupport
import Testing

/// The memory budget under the kernel's memory pressure (PSI): one image at a
/// time while `some avg10` is above the threshold, one warning, back to the budget
/// alone once it falls.
@Suite struct MemoryPressureTests {
    private func write(_ path: String, some avg10: Double) throws {
        try "some avg10=\(avg10) avg60=0.00 avg300=0.00 total=1\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
    }

    @Test func shortMemoryAdmitsOneImageAtATime() throws {
        let dir = try TemporaryDirectory()
        let file = dir.join("memory")
        try write(file, some: 42.5)
        let warnings = Collected<String>()
        let found = MemoryPressure(path: file, warn: { warnings.append($0) })
        let pressure = try #require(found)
        let budget = MemoryBudget(limit: 1 << 30, pressure: pressure)
        #expect(try budget.admit(100, cancelled: { false }))
        // A second image waits while the first is in, though the budget has room; it gives up when cancelled.
        let start = ContinuousClock.now
        #expect(try !budget.admit(100, cancelled: { ContinuousClock.now - start > .milliseconds(300) }))
        budget.release(100)
        #expect(try budget.admit(100, cancelled: { false }), "alone, an image is admitted")
        #expect(warnings.all.count == 1 && warnings.all[0].contains("memory is short"))
        // The pressure falls (the file is read at most once a second): two at once again.
        try write(file, some: 0.5)
        Thread.sleep(forTimeInterval: 1.1)
        #expect(try budget.admit(100, cancelled: { true }))
        #expect(warnings.all.count == 1)
    }

    @Test func noFileNoPressure() {
        #expect(MemoryPressure(path: "/nonexistent/pressure/memory", warn: { _ in }) == nil)
    }

    /// A budget kiln's own memory already fills admits nothing, and says so: before, "it needs about 2.2 MB …
    /// (beside the 83 MB kiln itself holds), more than --memory 60 MB allows" read as a contradiction. The budget it
    /// names has room for what kiln holds varying by 2 MB from run to run.
    @Test func aBudgetKilnItselfFillsSaysSo() {
        let budget = MemoryBudget(limit: 60 << 20, reserved: 83 << 20)
        #expect(throws: MemoryBudget.TooLarge.self) { try budget.admit(2 << 20, cancelled: { false }) }
        do {
            _ = try budget.admit(2 << 20, cancelled: { false })
        } catch {
            let text = "\(error)"
            #expect(text.contains("kiln itself already holds 83 MB") && text.contains("this one needs --memory 87 MB at least"), "\(text)")
        }
    }
}
