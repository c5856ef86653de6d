@testable import Export
import ImageCore
import Foundation
import Testing

/// The job's fraction (``JobProgress``): weights fixed before it is shown, so it never falls; the
/// planning stage moves it; a resume's base is where it starts.
@Suite struct JobProgressTests {
    private let costs = [StageCost(render: 10, encode: 90), StageCost(render: 1, encode: 1), StageCost(render: 50, encode: 0)]

    /// A lossless WebP kept lossless under `--format same` (no quality given) is weighed at the lossless rate, as it
    /// is written: it was weighed at the lossy one, several times less, so the fraction ran ahead of the work.
    @Test func aLosslessWebPKeptLosslessIsWeighedAsLossless() {
        var header = ImageHeader(format: .webp, width: 100, height: 100, depth: .eight, hasAlpha: false, decodesWhole: true)
        header.isLossless = true
        func encode(_ plan: ExportPlan, _ header: ImageHeader) -> Double {
            StageCost.estimate(header: header, fileBytes: 1000, plan: plan, output: .webp, outputPixels: 10_000).encode
        }
        var same = ExportPlan()
        same.output.format = .same
        var lossless = ExportPlan()
        lossless.output.format = .webp
        lossless.output.lossless = true
        var quality = same
        quality.output.quality = 80
        #expect(encode(same, header) == encode(lossless, header))
        var lossy = header
        lossy.isLossless = false
        #expect(encode(quality, header) == encode(same, lossy) && encode(same, lossy) < encode(same, header))
    }

    /// A progressive JPEG's scans, read whole before its first row, are a part of its render of their own: weighed at
    /// five times a baseline file's entropy decoding, heard as the file is read, the rows' progress after them.
    @Test func aFileReadFirstIsAPartOfTheRender() {
        var header = ImageHeader(format: .jpeg, width: 1000, height: 1000, depth: .eight, hasAlpha: false, decodesWhole: false)
        let baseline = StageCost.estimate(header: header, fileBytes: 100_000, plan: ExportPlan(), output: .jpeg, outputPixels: 1_000_000)
        header.readsFileFirst = true
        let scans = StageCost.estimate(header: header, fileBytes: 100_000, plan: ExportPlan(), output: .jpeg, outputPixels: 1_000_000)
        #expect(baseline.firstRead == 0 && scans.firstRead > 0 && scans.firstRead < scans.render)
        #expect(abs(scans.render - baseline.render - 1_000_000 * (12.5 - 2.5)) < 1e-6)

        let job = JobProgress(root: Progress(totalUnitCount: 1), costs: [StageCost(render: 10, encode: 0, firstRead: 4)],
                              pixels: 1, base: 0, workers: 1, cores: 1)
        let item = job.begin(0)
        job.advance(item, rendering: 0)  // a writer begun: nothing read, nothing rendered
        #expect(job.fraction == 0)
        job.advance(item, readingFirst: 0.5)
        #expect(abs(job.fraction - 0.2) < 1e-9)
        job.advance(item, rendering: 0.5)
        #expect(abs(job.fraction - 0.7) < 1e-9, "the file read, then half the rows: 4 + 6 / 2 of 10")
    }

    @Test func theFractionFollowsEachStageAndNeverFalls() {
        let root = Progress(totalUnitCount: 1)
        let job = JobProgress(root: root, costs: costs, pixels: 3, base: 0, workers: 2, cores: 2)
        var seen = [job.fraction]
        let big = job.begin(0), small = job.begin(1)
        job.advance(big, rendering: 0.5)
        seen.append(job.fraction)
        #expect(abs(job.fraction - 5.0 / 152) < 1e-9)
        job.advance(big, rendering: 0.2)  // a restarted render (device fallback) repeats work: no step back
        seen.append(job.fraction)
        job.advance(big, rendering: 1)
        job.advance(big, encoding: 0.5)
        seen.append(job.fraction)
        #expect(abs(job.fraction - 55.0 / 152) < 1e-9)
        job.finish(small)  // a failed image counts as done whatever stage it reached
        job.finish(big)
        seen.append(job.fraction)
        let last = job.begin(2)
        job.advance(last, rendering: 1)
        job.finish(last)
        seen.append(job.fraction)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 <= $1 }, "\(seen)")
        #expect(job.fraction == 1)
        #expect(root.fractionCompleted == 1)
    }

    @Test func aResumeStartsWhereTheStoppedRunWasAndSharesTheRest() {
        let job = JobProgress(root: Progress(totalUnitCount: 1), costs: costs, pixels: 3, base: 0.6, workers: 2, cores: 2)
        #expect(job.fraction == 0.6)
        #expect(abs(job.share - 0.4) < 1e-12)
        let image = job.begin(2)
        job.finish(image)
        #expect(abs(job.fraction - (0.6 + 0.4 * 50 / 152)) < 1e-9)
    }

    /// The fraction is 1 once every image is finished, whatever order their costs were summed in (0.1 + 0.2 + 0.3
    /// against 0.3 + 0.2 + 0.1 fell short of 1: a desktop view of a job that ended "done" said 99 %), and below 1
    /// until then (images handed to a commit that holds them a batch showed 1.0 with none completed).
    @Test func theFractionIsOneExactlyWhenEveryImageIsFinished() {
        let costs = [StageCost(render: 0.1, encode: 0), StageCost(render: 0.2, encode: 0), StageCost(render: 0.3, encode: 0)]
        let job = JobProgress(root: Progress(totalUnitCount: 1), costs: costs, pixels: 3, base: 0, workers: 3, cores: 2)
        let items = (0..<3).map { job.begin($0) }
        for item in items { job.handOver(item) }
        #expect(job.fraction < 1 && (job.fraction * 10_000).rounded() / 10_000 < 1, "\(job.fraction)")
        for item in items.reversed() { job.finish(item) }
        #expect(job.fraction == 1 && job.finishedFraction == 1)
        let resumed = JobProgress(root: Progress(totalUnitCount: 1), costs: costs, pixels: 3, base: 0.35, workers: 1, cores: 2)
        for index in [2, 1, 0] { resumed.finish(resumed.begin(index)) }
        #expect(resumed.fraction == 1)
    }

    @Test func readingTheHeadersMovesTheRootAndTheJobNeverStartsBelowIt() {
        let root = Progress(totalUnitCount: 1)
        var before = root.fractionCompleted
        for done in stride(from: 0, through: 1000, by: 256) {
            JobProgress.showPlanning(on: root, base: 0.25, done: done, of: 1000)
            #expect(root.fractionCompleted >= before)
            before = root.fractionCompleted
        }
        #expect(before > 0.25)
        let job = JobProgress(root: root, costs: costs, pixels: 3, base: 0.25, workers: 2, cores: 2)
        #expect(job.fraction >= before)
        #expect(root.fractionCompleted >= before)
    }

    @Test func theLastImagesInHandAreTheCriticalPath() {
        let job = JobProgress(root: Progress(totalUnitCount: 1), costs: costs, pixels: 3, base: 0, workers: 2, cores: 2)
        let first = job.begin(0), second = job.begin(1)
        // The job moves 0.01 of itself a second: 1.52 cost units, two images side by side, 0.76 each;
        // an image alone goes speedUp(2 → 1) times that. Nothing measured yet: image 1 (2) ends
        // beside image 0, image 2 (50) takes its place and ends beside it, and image 0's last 48 go alone.
        let alone = 0.76 * JobProgress.speedUp(sharing: 2, to: 1, cores: 2)
        #expect(abs(job.secondsLeftInHand(rate: 0.01) - (52 / 0.76 + 48 / alone)) < 1e-6,
                "images waiting their turn go at the job's rate while the workers are busy, then alone")
        job.finish(second)
        let third = job.begin(2)
        job.advance(first, rendering: 1)
        // All begun: image 0 has 90 left, image 2 its 50. Sharing the cores, image 2 ends first,
        // then image 0 has them all for its last 40.
        #expect(abs(job.secondsLeftInHand(rate: 0.01) - (50 / 0.76 + 40 / alone)) < 1e-6)
        // Once its encode has run a second, image 0 (alone now) goes at its own pace: 30 of 90 in about 1.1 s.
        job.finish(third)
        let clock = ContinuousClock(), began = clock.now
        job.advance(first, encoding: 0)
        job.advance(first, encoding: 0.001)
        usleep(1_100_000)
        job.advance(first, encoding: 1.0 / 3)
        let own = job.secondsLeftInHand(rate: 0.01)
        // 30 done in the encode's time so far, 60 left: twice that time, however loaded the machine
        // (at least the 1.1 s slept, at most what this test measured around it).
        let (whole, atto) = (clock.now - began).components
        let measured = Double(whole) + Double(atto) * 1e-18
        #expect(own >= 2 * 1.1 * 0.99 && own <= 2 * measured * 1.01, "60 left after 30 in \(measured) s: \(own)")
        job.finish(first)
        #expect(job.secondsLeftInHand(rate: 0.01) == 0, "nothing left")
    }

    @Test func anEncodeLeftAloneIsExpectedToGoAsFastAsTheCoresAllowIt() {
        // Two images encoding side by side (their segments share the cores); then one ends.
        let job = JobProgress(root: Progress(totalUnitCount: 1),
                              costs: [StageCost(render: 10, encode: 90), StageCost(render: 10, encode: 90)], pixels: 2, base: 0, workers: 2, cores: 2)
        let first = job.begin(0), second = job.begin(1)
        let clock = ContinuousClock(), began = clock.now
        for item in [first, second] {
            job.advance(item, rendering: 1)
            job.advance(item, encoding: 0.001)
        }
        usleep(1_100_000)
        job.advance(first, encoding: 1.0 / 3)
        job.advance(second, encoding: 0.9)
        let shared = job.secondsLeftInHand(rate: 0.01)
        job.finish(second)
        let alone = job.secondsLeftInHand(rate: 0.01)
        let (whole, atto) = (clock.now - began).components
        let measured = Double(whole) + Double(atto) * 1e-18
        // The first image did 30 in the time so far beside another: alone, it goes speedUp(2 → 1)
        // faster, so the 60 left take twice that time over the speed-up; with the second's 9 left,
        // a little more.
        let faster = JobProgress.speedUp(sharing: 2, to: 1, cores: 2)
        #expect(faster > 1.5 && faster < 2)
        #expect(alone >= 2 * 1.1 * 0.99 / faster && alone <= 2 * measured * 1.01 / faster,
                "60 left after 30 in \(measured) s: \(alone)")
        #expect(shared > alone, "shared: \(shared) s, alone: \(alone) s")
    }

    @Test func aBatchEndsAsSlowlyAsItsLastImageAlone() {
        // 15 equal images, two workers, nothing measured: seven pairs at the job's rate, then the
        // last image with the cores to itself, which it cannot fill.
        let job = JobProgress(root: Progress(totalUnitCount: 1), costs: Array(repeating: StageCost(render: 0, encode: 1), count: 15),
                              pixels: 15, base: 0, workers: 2, cores: 2)
        let rate = 0.01 * 15, alone = rate / 2 * JobProgress.speedUp(sharing: 2, to: 1, cores: 2)
        #expect(abs(job.secondsLeftInHand(rate: 0.01) - (14 / rate + 1 / alone)) < 1e-6)
        #expect(job.secondsLeftInHand(rate: 0.01) > 100, "more than the work at the job's rate")
        // 41: the last 16 waiting are played out (eight pairs), the 25 before them go at the job's rate.
        let long = JobProgress(root: Progress(totalUnitCount: 1), costs: Array(repeating: StageCost(render: 0, encode: 1), count: 41),
                               pixels: 41, base: 0, workers: 2, cores: 2)
        #expect(abs(long.secondsLeftInHand(rate: 0.01) - 100) < 1e-6)
        // One worker: the job's rate is one image's alone.
        let one = JobProgress(root: Progress(totalUnitCount: 1), costs: Array(repeating: StageCost(render: 0, encode: 1), count: 15),
                              pixels: 15, base: 0, workers: 1, cores: 2)
        #expect(abs(one.secondsLeftInHand(rate: 0.01) - 100) < 1e-6)
    }

    @Test func beyondTheCoresImagesTakeTurnsOnThem() {
        // Up to the cores, (before / after)^0.7; beyond them, n images go cores / n of the pace of
        // `cores` images each.
        #expect(abs(JobProgress.speedUp(sharing: 2, to: 1, cores: 2) - pow(2, 0.7)) < 1e-12)
        #expect(abs(JobProgress.speedUp(sharing: 8, to: 1, cores: 16) - pow(8, 0.7)) < 1e-12)
        #expect(abs(JobProgress.speedUp(sharing: 8, to: 2, cores: 2) - 4) < 1e-12)
        #expect(abs(JobProgress.speedUp(sharing: 8, to: 1, cores: 2) - 4 * pow(2, 0.7)) < 1e-12)
        #expect(abs(JobProgress.speedUp(sharing: 1, to: 8, cores: 2) * JobProgress.speedUp(sharing: 8, to: 1, cores: 2) - 1) < 1e-12)
        // 9 equal images, `--jobs 8` on 2 cores, nothing measured: 8 at the job's rate, then the
        // last alone, 4 × 2^0.7 (6.5) times as fast as one of the 8 (counted 8^0.7 = 4.3, it ran long).
        let job = JobProgress(root: Progress(totalUnitCount: 1), costs: Array(repeating: StageCost(render: 0, encode: 1), count: 9),
                              pixels: 9, base: 0, workers: 8, cores: 2)
        let rate = 0.01 * 9, one = rate / 8
        #expect(abs(job.secondsLeftInHand(rate: 0.01) - (8 / rate + 1 / (one * 4 * pow(2, 0.7)))) < 1e-6)
    }

    @Test func anyNumberOfWorkersIsCountedAndEqualImagesInFullRoundsGoAtTheJobsRate() {
        let equal = Array(repeating: StageCost(render: 0, encode: 1), count: 10_000)
        // 64 workers: the last 512 images played out, 8 rounds in which all 64 end together.
        let played = JobProgress(root: Progress(totalUnitCount: 1), costs: equal, pixels: 1, base: 0, workers: 64, cores: 2)
        #expect(abs(played.secondsLeftInHand(rate: 0.01) - 100) < 1e-6)
        // More than 64 at once (`--jobs 1000`): everything at the job's rate, nothing played out —
        // played out, the long last image (100 of the 2,099) would run alone far beyond it.
        let many = JobProgress(root: Progress(totalUnitCount: 1),
                               costs: Array(equal.prefix(1_999)) + [StageCost(render: 0, encode: 100)], pixels: 1, base: 0,
                               workers: 1_000, cores: 2)
        #expect(abs(many.secondsLeftInHand(rate: 0.01) - 100) < 1e-6)
        let items = (0..<2_000).map { many.begin($0) }
        #expect(abs(many.secondsLeftInHand(rate: 0.01) - 100) < 1e-6)
        #expect(many.secondsLeftInHand(rate: .infinity) == 0, "no finite rate: no estimate")
        for item in items { many.finish(item) }
        #expect(many.secondsLeftInHand(rate: 0.01) == 0)
    }

    @Test func anImageHandedToTheCommitHasNoWorkLeft() {
        let job = JobProgress(root: Progress(totalUnitCount: 1), costs: costs, pixels: 3, base: 0, workers: 2, cores: 2)
        let skipped = job.begin(0), other = job.begin(1)
        job.handOver(skipped)  // skipped as the same work: never rendered nor encoded
        #expect(abs(job.fraction - 100.0 / 152) < 1e-9)
        // Left: image 1's 2 beside image 2's 50, then image 2's last 48 alone.
        let alone = 0.76 * JobProgress.speedUp(sharing: 2, to: 1, cores: 2)
        #expect(abs(job.secondsLeftInHand(rate: 0.01) - (2 / 0.76 + 48 / alone)) < 1e-6)
        job.finish(skipped)  // committed: the fraction stays
        #expect(abs(job.fraction - 100.0 / 152) < 1e-9)
        job.finish(other)
    }

    @Test func anImageWaitingForItsCommitSharesNoCore() {
        // Two workers; a third image, done, waits for its commit while the other two encode.
        let job = JobProgress(root: Progress(totalUnitCount: 1),
                              costs: [StageCost(render: 10, encode: 90), StageCost(render: 10, encode: 90),
                                      StageCost(render: 1, encode: 1)], pixels: 3, base: 0, workers: 2, cores: 2)
        let first = job.begin(0), second = job.begin(1)
        for item in [first, second] {
            job.advance(item, rendering: 1)
            job.advance(item, encoding: 0.001)
        }
        usleep(1_100_000)
        for item in [first, second] { job.advance(item, encoding: 1.0 / 3) }
        let third = job.begin(2)
        job.advance(third, rendering: 1)
        job.advance(third, encoding: 1)
        let waiting = job.secondsLeftInHand(rate: 0.01)
        job.finish(third)
        // Three in flight, then two: the two encoding shared the cores all along, their paces stand.
        let committed = job.secondsLeftInHand(rate: 0.01)
        #expect(committed >= waiting * 0.95 && committed <= waiting, "waiting: \(waiting) s, committed: \(committed) s")
    }
}
