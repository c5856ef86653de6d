import Export

// The wording is the CLI's (Export only counts): the text output's line and the tail of the no-images refusal.
extension IgnoredFiles {
    /// "ignored 5 files that are not .png, .jpg, .jpeg: 4 images (2 GIF, 1 TIFF, 1 WebP) and 1 other file";
    /// nil when the scans passed nothing over.
    var summary: String? {
        let total = files.count
        guard total > 0 else { return nil }
        let plural = { (count: Int, word: String) in "\(count) \(word)\(count == 1 ? "" : "s")" }
        var text = "ignored \(plural(total, "file")) that \(total == 1 ? "is" : "are") not \(IgnoredFile.scannedExtensions)"
        guard images > 0 else { return text }
        let counted = formats.map { "\($0.count) \($0.format)" }.joined(separator: ", ")
        text += ": " + (others == 0 ? counted : "\(plural(images, "image")) (\(counted))")
        if others > 0 { text += " and \(plural(others, "other file"))" }
        return text
    }
}
