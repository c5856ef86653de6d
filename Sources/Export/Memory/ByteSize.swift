import Foundation

/// Sizes as users write and read them: `300M`, `2G`, `512MiB`, `1.5GB`, `4096`
/// (units of 1024, as `sort -S`, `docker --memory` and Kubernetes' `Mi` mean them).
public enum ByteSize {
    /// The bytes `text` says, or nil when it is not a size.
    public static func parse(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.prefix { $0.isNumber || $0 == "." }
        guard !digits.isEmpty, let value = Double(digits), value.isFinite else { return nil }
        let unit = trimmed.dropFirst(digits.count).lowercased()
        let scale: Double
        switch unit {
        case "", "b": scale = 1
        case "k", "kb", "kib": scale = 1024
        case "m", "mb", "mib": scale = 1024 * 1024
        case "g", "gb", "gib": scale = 1024 * 1024 * 1024
        case "t", "tb", "tib": scale = 1024 * 1024 * 1024 * 1024
        default: return nil
        }
        let bytes = value * scale
        guard bytes >= 1, bytes < Double(Int.max) else { return nil }
        return Int(bytes)
    }

    /// A budget as it was given where it is a whole number of a unit ("1750 MB", "2 GB"; `--memory 1750M` was said
    /// as "1.7 GB" beside an image that needed "about 1.7 GB"), else ``text(_:roundingUp:)``'s.
    public static func budgetText(_ bytes: Int) -> String {
        for (unit, size) in [("TB", 1 << 40), ("GB", 1 << 30), ("MB", 1 << 20)]
        where bytes >= size && bytes % size == 0 {
            return "\(bytes / size) \(unit)"
        }
        return text(bytes)
    }

    /// `bytes` for people: "300 MB", "1.6 GB" (units of 1024), to the nearest, or `roundingUp` (what a
    /// `--memory` must at least be: "needs 834 MB" of 834.4 MB refused `--memory 834M`).
    public static func text(_ bytes: Int, roundingUp: Bool = false) -> String {
        let units = ["bytes", "KB", "MB", "GB", "TB"]
        var value = Double(bytes), unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(bytes) bytes" }
        let shown = value < 10 ? 10.0 : 1.0  // one decimal below 10
        let rounded = (roundingUp ? (value * shown).rounded(.up) : (value * shown).rounded()) / shown
        return value < 10 ? String(format: "%.1f %@", rounded, units[unit]) : "\(Int(rounded)) \(units[unit])"
    }
}
