import Export

// The wording is the CLI's (Export only counts): the text output's line and the tail of the no-images refusal.
extension IgnoredFiles {
    /// "ignored 5 files that are not .png, .jpg, .jpeg: 4 images (2 GIF, 1 TIFF, 1 WebP) and 1 other file",
    /// then "; ignored 1 special file (a named pipe, a socket or a device: never read)" and "; ignored 1
    /// symbolic link to a folder (--recursive follows none: links can loop)" when there are some;
    /// nil when the scans passed nothing over.
    var summary: String? {
        let plural = { (count: Int, word: String) in "\(count) \(word)\(count == 1 ? "" : "s")" }
        let total = files.count - specials - linkedFolders, others = self.others - specials - linkedFolders
        var parts: [String] = []
        if total > 0 {
            var text = "ignored \(plural(total, "file")) that \(total == 1 ? "is" : "are") not \(IgnoredFile.scannedExtensions)"
            if images > 0 {
                let counted = formats.map { "\($0.count) \($0.format)" }.joined(separator: ", ")
                text += ": " + (others == 0 ? counted : "\(plural(images, "image")) (\(counted))")
                if others > 0 { text += " and \(plural(others, "other file"))" }
            }
            parts.append(text)
        }
        if specials > 0 {
            parts.append("ignored \(plural(specials, "special file")) (a named pipe, a socket or a device: never read)")
        }
        if linkedFolders > 0 {
            parts.append("ignored " + (linkedFolders == 1 ? "1 symbolic link to a folder" : "\(linkedFolders) symbolic links to folders")
                         + " (--recursive follows none: links can loop)")
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}
