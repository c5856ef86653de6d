import Foundation
import ImageCore
import PNGCodec
import Render

/// What one image costs, by stage, in nanoseconds of one core of the machine
/// the figures were measured on: only their ratios matter, to weigh each
/// stage of each image by the time it takes (``JobProgress``).
public struct StageCost: Sendable, Equatable {
    /// Decoding and rendering (they stream together, strip by strip).
    public var render: Double
    /// Encoding the output (after the render, for a codec that holds the image).
    public var encode: Double
    /// The part of ``render`` done before the first row: a progressive JPEG's scans, read whole first
    /// (``ImageHeader/readsFileFirst``). 0 for an image whose rows stream from the start.
    public var firstRead: Double

    /// Both stages.
    public var total: Double { render + encode }

    /// A cost of `render` and `encode`, `firstRead` of the render before the first row.
    public init(render: Double, encode: Double, firstRead: Double = 0) {
        self.render = render
        self.encode = encode
        self.firstRead = min(firstRead, render)
    }

    /// An input whose header cannot be read fails when it is opened: about the cost of opening a file.
    static let unreadable = StageCost(render: Rates.perImage, encode: 0)

    /// The estimated cost of exporting an image with `header`, stored in a file of `fileBytes`, under
    /// `plan`, whose output, in format `format`, has `outputPixels`.
    static func estimate(header: ImageHeader, fileBytes: Int, plan: ExportPlan, output format: ImageFormat,
                         outputPixels: Int) -> StageCost {
        let input = Double(header.width * header.height)
        let output = Double(outputPixels)
        let deep = header.depth == .sixteen ? Rates.sixteenBits : 1
        var render = Rates.perImage
        var firstRead = 0.0
        switch header.format {
        case .jpeg:
            // Shrink-on-load: the entropy decoding reads every coefficient, the rest only what the
            // resize keeps (at least 5/4 of its size each way).
            let decoded = plan.shrinkOnLoadResize != nil ? min(input, max(output * 25 / 16, input / 64)) : input
            let entropy = input * (header.readsFileFirst ? Rates.jpegScansEntropy : Rates.jpegEntropy)
            render += entropy + decoded * Rates.jpegPixels
            if header.readsFileFirst { firstRead = Rates.perImage + entropy }
        case .webp: render += input * Rates.webpDecode
        default: render += input * Rates.decode * deep
        }
        // Operations before the resize work at the input's size, after it at the output's.
        var pixels = input
        for operation in plan.operations {
            switch operation {
            case .resize:
                render += pixels * Rates.resizeIn + output * Rates.resizeOut
                pixels = output
            case .blur(let blur): render += pixels * (Rates.blurBase + Rates.blurPerSigma * blur.sigma)
            case .sharpen(let sharpen):
                render += pixels * (Rates.blurBase + Rates.blurPerSigma * sharpen.sigma + Rates.sharpenCombine)
            case .crop, .rotate, .flip: pixels = min(pixels, output)
            case .adjust, .grayscale, .watermark: render += pixels * Rates.pointOperation
            }
        }
        var encode = 0.0
        switch format {
        case .jpeg:
            // Encoded row by row as the render hands rows on: part of the render stage.
            render += output * Rates.jpegEncode
        case .webp:
            encode = output * (plan.writesLosslessWebP(of: header) ? Rates.webpLossless : Rates.webpLossy)
        default:
            let level = min(max(plan.level, 0), 9)
            // An output too large to hold is compressed as the render hands its rows on (a colour
            // conversion included: it converts them on the way): part of the render stage.
            let streams = output * 4 * Double(header.depth.bytesPerSample) > Double(PNGWriter.heldBytes)
            // A held output at levels 2-7 is deflated whole by libdeflate; zlib's cost (levels 3-9
            // in segments) grows with the content: the input's bytes per pixel stand for it, times
            // (input / output pixels)^0.3 for a shrink, which packs more detail in each pixel.
            let perPixel = if !streams && (2...7).contains(level) {
                (Rates.encode[1] + Rates.heldLibdeflate[level - 2]) * deep
            } else if level >= 3 {
                Rates.encode[1] * deep + Rates.zlibPerStoredByte[level - 3]
                    * min(max(Double(fileBytes) / max(input, 1) * Rates.density(input: input, output: output), 0.02), 8)
            } else {
                Rates.encode[level] * deep
            }
            if streams { render += output * perPixel } else { encode = output * perPixel }
        }
        return StageCost(render: render, encode: encode, firstRead: firstRead)
    }

    /// Measured on the 2-core machine of BENCHMARKS.md (CPU backend, one job), in nanoseconds: CPU
    /// time (user + system, GNU `time`) of `kiln export` less that of the export without the stage.
    /// On the 16000×9000 photo, per pixel, after the kernels' loops went to CKernels (2026-11-27):
    /// fit to 64×64 11.6 (decode 8, resize 3); full size at level 1 11.3 with no operation (rows
    /// straight through; ISA-L in segments: 4.5); level 0 43 (libpng stored, whole-image page
    /// faults: 25); `--brightness` +17.6, `--sharpen 1` +25.5 (its blur, plus the combine: 8),
    /// `--blur 4` +25 (a Gaussian's cost grows with σ), each with its unpack and pack.
    /// Levels 2-9 (issue 26: level 2 is ISA-L with the least-entropy filter choice, 3-9 zlib in
    /// segments) from `Scripts/bench-levels` on W1 fit to 1920×1920 (63.4 MPix out), CPU time
    /// over level 1's: level 2 +26 ns per output pixel; zlib's varies twentyfold with the content
    /// (at level 9, 213 to 4,842 ns per output pixel on W1), so levels 3-9 are per output pixel
    /// and input byte per input pixel (bytes the input file holds for each of its pixels: Σ 31.5 M
    /// over W1's outputs), which predicted level 9 within 0.56–3.1× per image where one figure
    /// per pixel gave 0.42–9.6×. A held output at levels 2-7 (since the default level moved to
    /// libdeflate, BENCHMARKS.md) costs libdeflate's CPU over level 1's, W1 fit to 1920 (63.4 MPix
    /// out): its level 1 (levels 2-3) 1.10 ×, 2 (4-5) 1.22 ×, 3 (6) 1.31 × of level 1's 4.06 s,
    /// its 6 with least entropy (7) 9.70 s: +6.4, +14, +20 and +89 ns per output pixel. JPEG and WebP: from the whole-export figures of issue 27
    /// (BENCHMARKS.md: J1, the 400 MPix JPEG, J1's WebPs), not measured stage by stage.
    enum Rates {
        static let perImage = 200_000.0
        static let decode = 8.0
        static let sixteenBits = 2.0
        static let resizeIn = 3.0
        static let resizeOut = 20.0
        static let blurBase = 15.0
        static let blurPerSigma = 2.5
        static let sharpenCombine = 8.0
        static let pointOperation = 17.6
        /// Per output pixel, levels 0-2 (3-9: level 1's and zlib's below).
        static let encode: [Double] = [25, 4.5, 30]
        /// Per output pixel over level 1's, a held output at levels 2-7 (libdeflate whole).
        static let heldLibdeflate: [Double] = [6.4, 6.4, 14, 14, 20, 89]
        /// Per output pixel and input byte per input pixel (times ``density(input:output:)``),
        /// levels 3-9, over level 1's.
        static let zlibPerStoredByte: [Double] = [117, 120, 158, 296, 477, 1_698, 3_189]

        /// How much denser an output's content is than its input's, for zlib's cost:
        /// `(input / output)^0.3`, within 1/4…4. Fitted on W1's 29 images at level 9, each
        /// alone (`--jobs 1`, fit to 1920, CPU time over level 1's): with the input's bytes
        /// per pixel alone, the 19 images shrunk 1.3-2.7× cost 1.20 × the prediction and the
        /// 10 kept at their size 0.85 × (the ETA of a batch in that order ran 35-38 % short
        /// midway); with the exponent 0.3, 1.07 and 1.05 (0.2 and 0.4: 0.98/1.12, 1.13/1.02).
        /// Level 9's figure refitted with it (2,933 on that run, 3,654 without; the table
        /// keeps the earlier 3,971 × 0.803 and scales levels 3-8 by the same factor).
        static func density(input: Double, output: Double) -> Double {
            min(max(pow(input / max(output, 1), 0.3), 0.25), 4)
        }
        /// JPEG: per input pixel (Huffman decoding), per decoded pixel, per output pixel.
        static let jpegEntropy = 2.5, jpegPixels = 3.5, jpegEncode = 10.0
        /// JPEG of several scans (progressive): per input pixel, the scans read before the first row. libjpeg-turbo's
        /// `djpeg -scale 1/8` (the entropy decoding, nearly all) of one 24 MPix photo, baseline 0.08 s, progressive
        /// 0.39 s: five times baseline's. A baseline file of a scan per component (rare), also read whole first,
        /// is weighed alike, though its decoding is baseline's.
        static let jpegScansEntropy = 12.5
        /// WebP: decoding per input pixel; encoding per output pixel, lossy (quality, method 4) and lossless.
        static let webpDecode = 12.0, webpLossy = 100.0, webpLossless = 900.0
    }
}
