import ArgumentParser
import Foundation

/// Numbers as kiln's options take them: written in decimal. Swift's `Double(String)`, which ArgumentParser uses,
/// reads C's hexadecimal floats too, so ImageMagick's `-blur 0x10` habit (radius × sigma) typed as `--blur 0x10`
/// blurred by σ 16 without a word (found 2026-11-29), while `--quality 0x50` and a recipe's `0x10` were refused.
enum NumberArgument {
    /// Why a text is not a number an option takes.
    enum Problem: Error, CustomStringConvertible {
        /// Hexadecimal, words, nothing.
        case notDecimal
        /// A decimal past the largest `Double` (`1e400`, which reads as inf).
        case tooLarge
        /// A decimal too small to tell from 0 (`1e-400`, which reads as 0).
        case tooSmall

        var description: String {
            switch self {
            case .notDecimal: "not a decimal number (such as 16, 0.5 or 1e-3)"
            case .tooLarge: "too large a number"
            case .tooSmall: "too small a number to tell from 0"
            }
        }
    }

    /// `text` as a decimal number (`16`, `-0.5`, `.5`, `1e-3`), or `nan`, `inf`, `infinity` (signed, any case), which
    /// the options' ranges then refuse by name; surrounding blanks are ignored.
    /// - Throws: ``Problem``, for anything else (hexadecimal, words), and for a decimal too large to hold or too small
    ///   to tell from 0 (`1e400`, `1e-400`: they read as inf and 0, and the range's message named a value the user
    ///   never typed).
    static func decimal(_ text: String) throws(Problem) -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let words = ["nan", "inf", "infinity"]
        if words.contains(String(trimmed.lowercased().drop { $0 == "+" || $0 == "-" })), let value = Double(trimmed) {
            return value
        }
        guard let match = trimmed.wholeMatch(of: #/[+-]?(?<mantissa>[0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?/#),
              let value = Double(trimmed) else { throw .notDecimal }
        guard value.isFinite else { throw .tooLarge }
        guard value != 0 || match.mantissa.allSatisfy({ $0 == "0" || $0 == "." }) else { throw .tooSmall }
        return value
    }

    /// `text` as a whole number in decimal, surrounding blanks ignored, for an option's value: ArgumentParser's own `Int`
    /// said only "invalid" of `--quality 0x50` and refused `--jobs " 2"`, where the decimal options took blanks.
    /// - Throws: a `ValidationError` saying why.
    static func wholeNumber(_ text: String) throws -> Int {
        switch whole(text) {
        case .value(let value): return value
        case .notWhole: throw ValidationError("not a whole number in decimal (such as 2 or 85)")
        case .tooLarge: throw ValidationError("too large a number")
        }
    }

    /// `text` as a whole number in decimal, surrounding blanks ignored; nil when it is not one (`flag` names the option in
    /// the caller's message).
    /// - Throws: a `ValidationError` naming `flag` for a whole number too large to hold (it was said to be in the
    ///   wrong form).
    static func integer(_ text: String, flag: String) throws -> Int? {
        switch whole(text) {
        case .value(let value): return value
        case .notWhole: return nil
        case .tooLarge: throw ValidationError("\(flag): \(text.trimmingCharacters(in: .whitespaces)) is out of range")
        }
    }

    /// What `text`, blanks around it ignored, is as a whole number in decimal.
    private enum Whole {
        case value(Int), notWhole, tooLarge
    }

    private static func whole(_ text: String) -> Whole {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let value = Int(trimmed) { return .value(value) }
        return trimmed.wholeMatch(of: #/[+-]?[0-9]+/#) != nil ? .tooLarge : .notWhole
    }
}
