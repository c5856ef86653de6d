/// Which kinds of ancillary information an export keeps (`--keep`, `--strip`,
/// a recipe's `output.metadata`). Every kind is kept by default. The kinds are
/// the format-neutral ones of ``ImageMetadata``; each codec says which of its
/// blocks (PNG chunks, JPEG segments) belong to which.
public struct MetadataSelection: OptionSet, Sendable, Hashable, Codable {
    /// The raw bits.
    public let rawValue: Int
    /// A selection from raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// What defines the colours: an ICC profile (PNG also: sRGB, gAMA, cHRM, cICP, mDCv, cLLi).
    public static let icc = MetadataSelection(rawValue: 1 << 0)
    /// EXIF (PNG: eXIf).
    public static let exif = MetadataSelection(rawValue: 1 << 1)
    /// Text and XMP (PNG: tEXt, zTXt, iTXt).
    public static let text = MetadataSelection(rawValue: 1 << 2)
    /// Physical pixel size, DPI (PNG: pHYs).
    public static let phys = MetadataSelection(rawValue: 1 << 3)
    /// A time stamp stating when the output was made (the source's is never copied).
    public static let time = MetadataSelection(rawValue: 1 << 4)
    /// Every other block still true of the output (PNG: sBIT, bKGD, sPLT when
    /// the format is unchanged, and safe-to-copy chunks such as oFFs or private ones).
    public static let other = MetadataSelection(rawValue: 1 << 5)

    /// Everything (the default).
    public static let all: MetadataSelection = [.icc, .exif, .text, .phys, .time, .other]
    /// `--strip`: only what defines the colours, so they keep their meaning.
    public static let strip: MetadataSelection = [.icc]

    /// The names `--keep` and recipes use, in order.
    public static let names: [(name: String, kind: MetadataSelection)] = [
        ("icc", .icc), ("exif", .exif), ("text", .text), ("phys", .phys), ("time", .time), ("other", .other),
    ]

    /// Parses a comma-separated list of ``names``, or `all` or `none` alone; a failure names the first word that
    /// is not one of them, or the `all` or `none` given beside other words (`none,exif` meant exif and `all,none`
    /// all, without a word).
    public static func parse(_ list: String) -> Result<MetadataSelection, BadList> {
        var selection: MetadataSelection = []
        guard list.contains(where: { $0 != " " }) else {
            return .failure(BadList(description: "the list of kinds is empty (name them, or none to keep none)"))
        }
        let words = list.split(separator: ",", omittingEmptySubsequences: false).map { $0.filter { $0 != " " }.lowercased() }
        if words.count > 1, let alone = words.first(where: { $0 == "all" || $0 == "none" }) {
            return .failure(BadList(description: "\"\(alone)\" stands alone, not in a list with other kinds "
                                    + "(\(words.joined(separator: ",")))"))
        }
        for word in words {
            switch word {
            case "all": selection.formUnion(.all)
            case "none": break
            default:
                guard let kind = names.first(where: { $0.name == word })?.kind else {
                    return .failure(BadList(description: "unknown metadata kind \"\(word)\" (use "
                                            + "\(MetadataSelection.names.map(\.name).joined(separator: ", ")), all or none)"))
                }
                selection.formUnion(kind)
            }
        }
        return .success(selection)
    }

    /// What is wrong with a `--keep` list: "unknown metadata kind "x" (use icc, exif, text, phys, time, other,
    /// all or none)", or ""none" stands alone, not in a list with other kinds (none,exif)".
    public struct BadList: Error, CustomStringConvertible {
        /// The problem, in words.
        public let description: String
    }
}
