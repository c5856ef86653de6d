public import ImageCore

extension ColorProfile {
    /// A profile saying what coding-independent code points say (ITU-T H.273, as PNG's cICP chunk carries
    /// them: colour primaries, transfer characteristics, matrix coefficients, full-range flag), for RGB
    /// pixels, or gray ones (`gray`: only the white point and curve count); nil where no ICC matrix-shaper
    /// says it: HDR curves (PQ, HLG: they need a peak luminance and tone mapping), a matrix other than
    /// identity (YCbCr), narrow-range values, and code points H.273 leaves unspecified or reserved.
    ///
    /// The BT.709 family of transfers (1, 6, 14, 15) is read as the inverse of its camera curve, as
    /// Chromium and Skia read it in a PNG or AVIF (not BT.1886's display gamma 2.4).
    /// - Parameter description: the profile's description (ASCII).
    public static func cicp(primaries: UInt8, transfer: UInt8, matrix: UInt8, fullRange: UInt8, gray: Bool,
                            description: String) -> ColorProfile? {
        guard matrix == 0, fullRange == 1, let curve = cicpCurve(transfer), let chromaticities = cicpPrimaries(primaries) else {
            return nil
        }
        let white = Array(chromaticities[0..<2])
        return gray ? Self.gray(white: white, curve: curve, description: description)
            : rgb(white: white, primaries: Array(chromaticities[2...]), curve: curve, description: description)
    }

    /// H.273's colour primaries: white x, y, then red, green, blue x, y each.
    private static func cicpPrimaries(_ code: UInt8) -> [Double]? {
        let d65 = [0.3127, 0.3290]
        return switch code {
        case 1: d65 + [0.64, 0.33, 0.30, 0.60, 0.15, 0.06]  // BT.709, sRGB
        case 4: [0.310, 0.316, 0.67, 0.33, 0.21, 0.71, 0.14, 0.08]  // BT.470 System M, illuminant C
        case 5: d65 + [0.64, 0.33, 0.29, 0.60, 0.15, 0.06]  // BT.470 System B, G; BT.601 625
        case 6, 7: d65 + [0.630, 0.340, 0.310, 0.595, 0.155, 0.070]  // BT.601 525, SMPTE 240M
        case 8: [0.310, 0.316, 0.681, 0.319, 0.243, 0.692, 0.145, 0.049]  // generic film, illuminant C
        case 9: d65 + [0.708, 0.292, 0.170, 0.797, 0.131, 0.046]  // BT.2020, BT.2100
        case 11: [0.314, 0.351, 0.680, 0.320, 0.265, 0.690, 0.150, 0.060]  // SMPTE RP 431-2 (DCI-P3)
        case 12: d65 + [0.680, 0.320, 0.265, 0.690, 0.150, 0.060]  // SMPTE EG 432-1 (Display P3)
        case 22: d65 + [0.630, 0.340, 0.295, 0.605, 0.155, 0.077]  // EBU Tech. 3213-E
        default: nil
        }
    }

    /// H.273's transfer characteristics as a decoding curve; nil for HDR and unspecified ones.
    private static func cicpCurve(_ code: UInt8) -> TransferCurve? {
        switch code {
        case 1, 6, 14, 15:  // BT.709, BT.601, BT.2020: V = 1.099 L^0.45 - 0.099 from L = 0.018, else 4.5 L
            .parametric(g: 1 / 0.45, a: 1 / 1.099, b: 0.099 / 1.099, c: 1 / 4.5, d: 4.5 * 0.018)
        case 4: .gamma(2.2)  // BT.470 System M
        case 5: .gamma(2.8)  // BT.470 System B, G
        case 7:  // SMPTE 240M: V = 1.1115 L^0.45 - 0.1115 from L = 0.0228, else 4 L
            .parametric(g: 1 / 0.45, a: 1 / 1.1115, b: 0.1115 / 1.1115, c: 1 / 4.0, d: 4 * 0.0228)
        case 8: .gamma(1)  // linear
        case 13: .srgb  // IEC 61966-2-1
        default: nil
        }
    }
}
