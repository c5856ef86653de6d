import Foundation
import KilnTestSupport
import Testing

/// Values chosen to break arithmetic, allocation or the Vulkan kernels' `Int32`
/// push constants: each is refused before anything is written (exit 64, naming
/// the flag) or, where only the image's size decides, fails that image alone
/// (exit 1, naming the file); never a crash. SampleData's images are 96×64.
@Suite struct HostileParameterTests {
    static let mark = Paths.sampleData + "/watermark.png"

    /// Flags and the text the refusal must contain.
    static let refused: [([String], String)] = [
        (["--watermark", mark, "--watermark-margin", "3000000000"], "--watermark-margin must be 0…2147483647"),
        (["--resize", "65536x65536", "--upscale", "--fit", "fill"], "--resize: resize would make a 65536×65536 image"),
        (["--resize", "0x0"], "--resize width must be 1…65536"),
        (["--resize", "9223372036854775807x"], "--resize width must be 1…65536"),
        (["--crop", "9223372036854775807,9223372036854775807,1,1"], "--crop x must be 0…2147483647"),
        (["--crop", "0,0,9223372036854775807,1"], "--crop width must be 1…2147483647"),
        (["--blur", "1e30"], "--blur must be 0.01…1000"),
        (["--blur", "nan"], "--blur must be 0.01…1000, not nan"),
        (["--sharpen", "1,inf"], "--sharpen sigma must be 0.01…1000"),
        (["--watermark", mark, "--watermark-scale", "0"], "--watermark-scale must be 0.001…1"),
        (["--watermark", mark, "--watermark-opacity", "nan"], "--watermark-opacity must be 0…1"),
        (["--gamma", "1e-300"], "--gamma must be 0.01…100"),
        (["--exposure", "1000"], "--exposure must be -64…64"),
        (["--brightness", "1e308"], "--brightness must be -100…100"),
        (["--saturation", "1e308"], "--saturation must be -100…100"),
        (["--rotate", "45"], "--rotate must be 90, 180 or 270"),
        // Numbers in decimal only: Swift's Double(String) read C's hexadecimal floats, and ImageMagick's `-blur 0x10`
        // typed as `--blur 0x10` blurred by σ 16 without a word.
        (["--blur", "0x10"], "'0x10' is invalid for '--blur <sigma>': not a decimal number"),
        (["--brightness", "0x1p-1"], "'0x1p-1' is invalid for '--brightness <f>': not a decimal number"),
        (["--stall-timeout", "0x10"], "'0x10' is invalid for '--stall-timeout <stall-timeout>': not a decimal number"),
        (["--sharpen", "0x1"], "--sharpen expects 1 to 3 comma-separated numbers, not '0x1'"),
        // A value too large or too small to hold is named as typed (the range's message said "not inf", "not 0").
        (["--blur", "1e400"], "'1e400' is invalid for '--blur <sigma>': too large a number"),
        (["--gamma", "1e-400"], "'1e-400' is invalid for '--gamma <g>': too small a number to tell from 0"),
        (["--sharpen", "1,1e400"], "--sharpen: '1e400' is too large a number"),
        // A whole number too large for an Int was said to be in the wrong form.
        (["--resize", "99999999999999999999x"], "--resize: 99999999999999999999 is out of range"),
        (["--crop", "0,0,99999999999999999999,1"], "--crop: 99999999999999999999 is out of range"),
        // An empty file name (a script's unset variable) said "invalid recipe : cannot read the file".
        (["--recipe", ""], "--recipe must not be empty"),
        (["--profile", " "], "--profile must not be empty"),
        // Whole numbers alike: ArgumentParser's own said only "invalid".
        (["--quality", "0x50"], "'0x50' is invalid for '--quality <q>': not a whole number in decimal"),
        (["--jobs", "2.5"], "'2.5' is invalid for '--jobs <jobs>': not a whole number in decimal"),
        (["--level", "99999999999999999999"], "'99999999999999999999' is invalid for '--level <level>': too large a number"),
        // "90.0" had ArgumentParser's bare "invalid", without what is taken.
        (["--rotate", "90.0"], "'90.0' is invalid for '--rotate <degrees>': must be 90, 180 or 270"),
        (["--max-pixels", "3000000000"], "--max-pixels must be 1…2147483647"),
        (["--stall-timeout", "1e300"], "--stall-timeout must be 0.001…31536000"),
        (["--stall-timeout", "1e-300"], "--stall-timeout must be 0.001…31536000"),
        (["--grace", "inf"], "--grace must be 0…"),
        // A second value was taken without a word, the first dropped: a half turn asked as two quarter turns
        // turned once.
        (["--rotate", "90", "--rotate", "90"], "--rotate is given twice (90, then 90)"),
        (["--flip", "h", "--flip=v"], "--flip is given twice (h, then v)"),
        (["--brightness", "-0.1", "--brightness", "-0.2"], "--brightness is given twice (-0.1, then -0.2)"),
        (["-0o", "/proc/kiln-elsewhere"], "--output is given twice"),
    ]

    @Test(arguments: refused)
    func refusedBeforeAnythingIsWritten(_ flags: [String], _ named: String) throws {
        let work = try TemporaryDirectory()
        let r = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", work.join("out"), "--device", "cpu",
                          "--progress", "none"] + flags)
        #expect(r.signal == nil && r.status == 64, "\(flags): status \(String(describing: r.status)), signal \(String(describing: r.signal))")
        #expect(r.stderr.contains(named), "stderr should contain \(named): \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.join("out")), "nothing written")
    }

    /// Values whose effect depends on the image: the image fails, or the value is harmless.
    static let perImage: [([String], Int32, String?)] = [
        (["--resize", "60000x60000", "--upscale"], 1, "resize would make a 60000×40000 image"),
        // The output fits; the image between the resize's two passes does not: named as such.
        (["--resize", "1000x20", "--fit", "fill", "--upscale", "--max-pixels", "50000"], 1,
         "resize (between its horizontal and vertical passes) would make a 1000×64 image"),
        (["--crop", "2147483647,0,1,1"], 1, "lies outside the 96×64 image"),
        (["--watermark", mark, "--watermark-margin", "2147483647"], 0, nil),
        (["--watermark", mark, "--watermark-margin", "2147483647", "--watermark-position", "tl"], 0, nil),
        (["--crop", "5,5,2147483647,2147483647", "--resize", "1x1", "--blur", "1000"], 0, nil),
    ]

    @Test(arguments: perImage, VulkanAvailability.current.cliDevices)
    func sizeDependentValuesFailTheImageOrWork(_ case: ([String], Int32, String?), _ device: String) throws {
        let (flags, status, named) = `case`
        try onDevice(device) {
            let work = try TemporaryDirectory()
            let input = Paths.sampleData + "/rgba16.png"
            let r = try kiln(["export", input, "--output", work.join("out"), "--device", device, "--progress", "none"] + flags)
            #expect(r.signal == nil && r.status == status, "\(flags): status \(String(describing: r.status)), \(r.stderr)")
            if let named {
                #expect(r.stderr.contains(input) && r.stderr.contains(named), "stderr should name the file and \(named): \(r.stderr)")
            }
        }
    }

    /// What is not an option given twice: a flag given twice (it says what it says once), a value that looks like
    /// an option, an input named like one after `--`; and a resume's own option given twice is refused alike.
    @Test func onlyAnOptionGivenTwiceIsRefused() throws {
        let work = try TemporaryDirectory()
        let out = work.join("out")
        let r = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", out, "--device", "cpu", "--progress", "none",
                          "--recursive", "--recursive", "--title=--rotate", "--rotate", "90", "--keep-journal"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try ImageTools.identify(out + "/rgb8.png").hasPrefix("64 96 "), "one quarter turn of the 96×64 image")
        let named = try kiln(["export", "--output", work.join("named"), "--rotate", "90", "--progress", "none", "--",
                              "--rotate"])
        #expect(named.status == 64 && named.stderr.contains("cannot read the input --rotate"), "\(named.stderr)")
        let resumed = try kiln(["resume", out, "--grace", "1", "--grace", "2"])
        #expect(resumed.status == 64 && resumed.stderr.contains("--grace is given twice (1, then 2): kiln takes one value "
                                                                 + "of each option; give it once"), "\(resumed.stderr)")
        // A short option inside a group is ArgumentParser's to read: not taken for a first --output (said "given
        // twice (, then o2)").
        let grouped = try kiln(["export", "-oout1", "-o", work.join("o2"), Paths.sampleData + "/rgb8.png"])
        #expect(grouped.status == 64 && !grouped.stderr.contains("given twice"), "\(grouped.stderr)")
    }

    /// An empty value written with `=` (a script's `--title="$T"`, `T` unset) is an empty value: ArgumentParser took the
    /// next argument for it (`--title= --rotate=90` made the title "--rotate=90" and turned nothing, exit 0).
    @Test func anEmptyValueWithAnEqualsSignIsEmpty() throws {
        let work = try TemporaryDirectory()
        let r = try kiln(["export", "--output", work.join("out"), "--title=", "--rotate=90", "--subtitle=", "--device", "cpu",
                          "--progress", "json", Paths.sampleData + "/rgb8.png"])
        #expect(r.status == 0, "\(r.stderr)")
        let start = Events(r.stdoutLines).named("start").first ?? [:]
        #expect(start[string: "title"] == "Exporting 1 image" && start[string: "subtitle"].hasPrefix("rotate 90"), "\(start)")
        #expect(try ImageTools.identify(work.join("out/rgb8.png")).hasPrefix("64 96 "), "turned")
        let keep = try kiln(["export", "--output", work.join("keep"), "--keep=", Paths.sampleData + "/rgb8.png"])
        #expect(keep.status == 64 && keep.stderr.contains("the list of kinds is empty"), "\(keep.stderr)")
        let twice = try kiln(["export", "--output", work.join("twice"), "--rotate=90", "--title=", "--rotate=180",
                              Paths.sampleData + "/rgb8.png"])
        #expect(twice.status == 64 && twice.stderr.contains("--rotate is given twice (90, then 180)"), "\(twice.stderr)")
        // A flag written so is the flag, as ArgumentParser reads it (not the flag and an empty input).
        let flag = try kiln(["export", "--output", work.join("flag"), "--recursive=", "--device", "cpu", "--progress", "none",
                             Paths.sampleData + "/rgb8.png"])
        #expect(flag.status == 0, "\(flag.stderr)")
    }

    @Test func resumeRefusesAStoredPlanOutOfRange() throws {
        let work = try TemporaryDirectory()
        let out = work.join("out")
        let first = try kiln(["export", Paths.sampleData + "/rgb8.png", "--output", out, "--device", "cpu",
                              "--progress", "none", "--blur", "2", "--keep-journal"])
        #expect(first.status == 0, "\(first.stderr)")
        let jobPath = out + "/.kiln/job.json"
        let job = try String(contentsOfFile: jobPath, encoding: .utf8)
        #expect(job.contains(#""sigma":2"#), "the journal records the plan: \(job)")
        try job.replacingOccurrences(of: #""sigma":2"#, with: #""sigma":1e30"#).write(toFile: jobPath, atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: out + "/rgb8.png")
        let resumed = try kiln(["resume", out, "--progress", "none"])
        // A journal edited out of range cannot be used: a runtime condition (exit 1), not a usage error.
        #expect(resumed.signal == nil && resumed.status == 1, "status \(String(describing: resumed.status)): \(resumed.stderr)")
        #expect(resumed.stderr.contains("options.plan.operations[0].sigma: must be 0.01…1000, not 1e+30"), "\(resumed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out + "/rgb8.png"), "nothing written")
    }
}
