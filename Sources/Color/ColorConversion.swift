/// What `--profile`, `--intent` and `--input-profile` ask for: convert every
/// image into `target` and tag it with it. A value (recorded in the job's
/// journal); ``ColorConverter`` does the work.
public struct ColorConversion: Sendable, Equatable, Codable {
    /// A profile named on the command line.
    public enum Profile: Sendable, Equatable, Codable, CustomStringConvertible {
        /// sRGB (IEC 61966-2-1).
        case srgb
        /// Display P3 (DCI-P3 primaries, D65, the sRGB curve).
        case displayP3
        /// An ICC profile file.
        case file(String)

        /// `srgb`, `p3`, or a path to an `.icc`/`.icm` file.
        public init(argument: String) {
            switch argument.lowercased() {
            case "srgb": self = .srgb
            case "p3", "display-p3", "displayp3": self = .displayP3
            default: self = .file(argument)
            }
        }

        /// The name as given on the command line.
        public var description: String {
            switch self {
            case .srgb: "srgb"
            case .displayP3: "p3"
            case .file(let path): path
            }
        }
    }

    /// How colours outside the target's gamut are mapped (ICC rendering intents).
    public enum Intent: String, Sendable, Equatable, Codable, CaseIterable {
        /// Compress the whole gamut, keeping relations between colours.
        case perceptual
        /// Keep in-gamut colours exactly, clip the rest, adapt the white point (the default, as libvips).
        case relative
        /// Keep saturation, for graphics.
        case saturation
        /// Keep in-gamut colours exactly, white point included.
        case absolute
    }

    /// The profile every output is converted to and tagged with.
    public var target: Profile
    /// The rendering intent; relative uses black-point compensation, as libvips does.
    public var intent: Intent
    /// The profile assumed for inputs with no (usable) embedded profile.
    public var inputProfile: Profile

    /// A conversion to `target`.
    public init(target: Profile, intent: Intent = .relative, inputProfile: Profile = .srgb) {
        self.target = target
        self.intent = intent
        self.inputProfile = inputProfile
    }
}
