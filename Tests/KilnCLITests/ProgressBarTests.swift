import Foundation
import KilnTestSupport
import Testing

/// The progress bar under a real terminal: `kiln` runs in a tmux pane and the
/// test reads the screen with `capture-pane`, as a person would see it.
@Suite(.serialized) struct ProgressBarTests {
    /// A detached tmux session running one command, on a private server socket.
    final class Pane {
        let socket = "kiln-test-\(UUID().uuidString.prefix(8))"

        init(width: Int, command: String, environment: [String: String]) throws {
            // The test runner's own NO_COLOR (SwiftPM sets it) must not leak into the pane.
            let env = "-u NO_COLOR " + environment.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
            // After kiln exits, the pane keeps its screen (and the exit code) for the test to read.
            let shell = "env \(env) \(command); echo EXIT=$?; sleep 60"
            let r = try tmux(["new-session", "-d", "-x", "\(width)", "-y", "20", "-s", "t", shell])
            #expect(r.status == 0, "tmux: \(r.stderr)")
        }

        @discardableResult
        func tmux(_ args: [String]) throws -> ChildProcess.Outcome {
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else {
                Issue.record("tmux is missing: run Scripts/setup")
                return ChildProcess.Outcome(status: 1, signal: nil, stdout: "", stderr: "",
                                            timedOut: false, elapsed: .zero)
            }
            return try ProcessRunner.run("/usr/bin/tmux", ["-L", socket] + args, environment: ["TERM": "xterm-256color"])
        }

        /// The screen's rows, trailing blanks trimmed; `escapes` keeps colour codes.
        func screen(escapes: Bool = false) throws -> [String] {
            let r = try tmux(["capture-pane", "-p", "-t", "t"] + (escapes ? ["-e"] : []))
            return r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map {
                String($0).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
            }
        }

        /// Non-empty rows.
        func rows() throws -> [String] { try screen().filter { !$0.isEmpty } }

        func waitFor(_ timeout: Duration = .seconds(120), _ condition: ([String]) -> Bool) throws -> Bool {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if condition(try rows()) { return true }
                usleep(100_000)
            }
            return false
        }

        deinit { _ = try? tmux(["kill-server"]) }
    }

    private func command(_ out: String) -> String {
        "\(Paths.kiln) export \(LargeImages.directory) --output \(out) --jobs 1 --stall-timeout 600"
    }

    @Test(arguments: [80, 200])
    func barShowsEverythingRedrawsInPlaceAndEndsWithOneSummaryLine(_ width: Int) throws {
        let out = try TemporaryDirectory()
        let pane = try Pane(width: width, command: command(out.path),
                            environment: ["KILN_TEST_STALL_AFTER": "3", "KILN_RUNTIME_DIR": out.join("slots")])
        // The stall hook holds the job at 3 of 24 images, so the screen can be read at leisure.
        #expect(try pane.waitFor { $0.joined().contains("3/24") && $0.joined().contains("MPix/s") },
                "screen: \((try? pane.rows()) ?? [])")
        usleep(600_000)  // several redraws later…
        let rows = try pane.rows()
        #expect(rows.count == 2, "the display is two rows redrawn in place, not scrolled: \(rows)")
        let all = rows.joined(separator: "\n")
        for piece in ["Exporting 24 images", "PNG level 6", "%", "3/24", "MPix/s", "img/s", "ETA", "0:0", "CPU"] {
            #expect(all.contains(piece), "missing \(piece) in \(rows)")
        }
        // Held between images, none is at work: none is named (one done is not the current file).
        #expect(!all.contains("photo0"), "no image at work, none named: \(rows)")
        #expect(rows.allSatisfy { $0.count < width }, "rows fit \(width) columns: \(rows)")

        try pane.tmux(["send-keys", "-t", "t", "C-c"])
        #expect(try pane.waitFor { $0.contains { $0.hasPrefix("EXIT=") } }, "screen: \((try? pane.rows()) ?? [])")
        let end = try pane.rows()
        #expect(end.count == 2, "one summary line, then the shell's exit line: \(end)")
        #expect(end.first?.hasPrefix("kiln: 3 written, 0 skipped, 0 failed of 24") == true, "\(end)")
        #expect(end.last == "EXIT=75")
    }

    /// The image at work is named when there is room: here the first, held open before its decoding.
    @Test func theImageAtWorkIsNamed() throws {
        let out = try TemporaryDirectory()
        let pane = try Pane(width: 200, command: command(out.path),
                            environment: ["KILN_TEST_PAUSE_DECODE": out.join("release"), "KILN_RUNTIME_DIR": out.join("slots")])
        #expect(try pane.waitFor { $0.joined().contains("0/24") && $0.joined().contains("photo00.png") },
                "the current file is shown when there is room: \((try? pane.rows()) ?? [])")
        _ = FileManager.default.createFile(atPath: out.join("release"), contents: Data())
        try pane.tmux(["send-keys", "-t", "t", "C-c"])
        #expect(try pane.waitFor { $0.contains { $0.hasPrefix("EXIT=") } }, "screen: \((try? pane.rows()) ?? [])")
    }

    /// At any width, fields of the bar row are dropped whole: never a number cut mid-way.
    @Test(arguments: [30, 45, 60])
    func narrowTerminalsDropWholeFields(_ width: Int) throws {
        let out = try TemporaryDirectory()
        let pane = try Pane(width: width, command: command(out.path),
                            environment: ["KILN_TEST_STALL_AFTER": "3", "KILN_RUNTIME_DIR": out.join("slots")])
        #expect(try pane.waitFor { $0.joined().contains("3/24") }, "screen: \((try? pane.rows()) ?? [])")
        usleep(600_000)
        let rows = try pane.rows()
        #expect(rows.allSatisfy { $0.count < width }, "rows fit \(width) columns: \(rows)")
        let whole = try Regex(#"^(\[[█░]+\] )?(\d+%|\d+/\d+|\d+ failed|\d+\.\d (MPix|img)/s|ETA (–:––|\d+:\d\d(:\d\d)?)|\d+:\d\d(:\d\d)?|photo\d\d\.png)$"#)
        let fields = (rows.last ?? "").components(separatedBy: " · ")
        #expect(fields.count >= 2, "\(rows)")
        for field in fields { #expect(field.wholeMatch(of: whole) != nil, "field cut: '\(field)' in \(rows)") }
        try pane.tmux(["send-keys", "-t", "t", "C-c"])
        #expect(try pane.waitFor { $0.contains("EXIT=75") })
    }

    @Test func colourIsUsedUnlessNoColorIsSet() throws {
        for noColor in [false, true] {
            let out = try TemporaryDirectory()
            var env = ["KILN_TEST_STALL_AFTER": "1", "KILN_RUNTIME_DIR": out.join("slots")]
            if noColor { env["NO_COLOR"] = "1" }
            let pane = try Pane(width: 120, command: command(out.path), environment: env)
            #expect(try pane.waitFor { $0.joined().contains("1/24") })
            let raw = try pane.screen(escapes: true).joined(separator: "\n")
            #expect(raw.contains("\u{1B}[") != noColor, "NO_COLOR=\(noColor): \(raw.debugDescription)")
            try pane.tmux(["send-keys", "-t", "t", "C-c"])
            #expect(try pane.waitFor { $0.contains("EXIT=75") })
        }
    }

    /// After Ctrl-C the display says it is stopping and what it finishes. With
    /// standard error in a file, `--progress bar` draws no bar (no escape codes),
    /// so the stopping line is there to read.
    @Test func stoppingSaysItFinishesTheImagesInFlight() throws {
        let out = try TemporaryDirectory()
        let child = try startKiln(["export", LargeImages.directory, "--output", out.path, "--progress", "bar",
                                   "--jobs", "1", "--level", "9", "--stall-timeout", "600"])
        #expect(child.waitUntil { !LargeImages.outputs(in: out.path).isEmpty })
        child.send(SIGINT)
        let r = try child.wait(timeout: .seconds(60))
        #expect(r.status == 75)
        // With --jobs 1 one image is in the worker's hands; the one before it may still wait for its commit (its
        // file placed, its result not out yet: CI saw "the 2 images" once), and counts as in flight too.
        let stopping = try Regex(#"stopping \(cancelled\): finishing the (image|2 images) in flight \(up to 5 s, then left for resume\)"#)
        let said = try #require(r.stderr.firstMatch(of: stopping), "\(r.stderr.suffix(600))")
        let inFlight = said.output[1].substring == "image" ? 1 : 2
        let summary = try Regex(#"kiln: (\d+) written, 0 skipped, 0 failed of 24 in "#)
        let written = try #require(r.stderr.firstMatch(of: summary)?.output[1].substring.flatMap { Int($0) }, "\(r.stderr)")
        #expect(written >= inFlight, "the \(inFlight) images said to be in flight finished: \(r.stderr)")
        #expect(LargeImages.outputs(in: out.path).count == written, "every image it counts is there, none abandoned half-way")
        #expect(r.stderr.hasSuffix("· stopped, resumable\n"), "ends with the summary line")
        #expect(!r.stderr.contains("\u{1B}"), "no escape codes into a file: \(r.stderr.debugDescription)")
    }

    /// Standard output on a terminal, standard error into a file (`2> log`): the
    /// bar, which goes to standard error, is not drawn into the log.
    @Test func noEscapeCodesInALogUnderATerminal() throws {
        let out = try TemporaryDirectory()
        let pane = try Pane(width: 100, command: command(out.path) + " 2> \(out.join("log"))",
                            environment: ["KILN_RUNTIME_DIR": out.join("slots")])
        #expect(try pane.waitFor { $0.contains { $0.hasPrefix("EXIT=") } }, "screen: \((try? pane.rows()) ?? [])")
        #expect(try pane.rows().last == "EXIT=0")
        let log = try String(contentsOfFile: out.join("log"), encoding: .utf8)
        #expect(!log.contains("\u{1B}"), "escape codes in the log: \(log.prefix(300).debugDescription)")
        #expect(log.contains("kiln: 24 written, 0 skipped, 0 failed of 24"), "the log keeps the summary: \(log)")
    }
}
