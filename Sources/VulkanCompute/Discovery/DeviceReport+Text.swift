import Foundation

extension DeviceReport {
    /// The one-line JSON object of `kiln devices --json`, with SPEC §5's key
    /// order (which `JSONEncoder` does not keep, hence written here).
    public var json: String {
        let deviceObjects = devices.map { device in
            JSONText.object([
                ("index", "\(device.index)"),
                ("name", JSONText.string(device.name)),
                ("type", JSONText.string(device.type.rawValue)),
                ("driver", JSONText.string(device.driver)),
                ("apiVersion", JSONText.string(device.apiVersion)),
                ("memoryBytes", "\(device.memoryBytes)"),
                ("usable", device.usable ? "true" : "false"),
            ])
        }
        return JSONText.object([
            ("devices", "[\(deviceObjects.joined(separator: ","))]"),
            ("supportedResources", "[\(supportedResources.map(JSONText.string).joined(separator: ","))]"),
            ("auto", JSONText.string(auto)),
            ("reasonCode", reasonCode.map { JSONText.string($0.rawValue) } ?? "null"),
            ("reason", JSONText.string(reason)),
        ])
    }

    /// The multi-line description of `kiln devices` for people.
    public var text: String {
        var lines: [String] = []
        if devices.isEmpty {
            lines.append("Vulkan devices: none")
        } else {
            lines.append("Vulkan devices:")
            for device in devices {
                let marker = device.index == autoDevice?.index ? "  ← auto" : ""
                lines.append("  [\(device.index)] \(device.name)\(marker)")
                let kind = device.type.isHardware ? "\(device.type.rawValue) GPU" : "cpu (software)"
                let memory = ByteCountFormatter.string(fromByteCount: Int64(clamping: device.memoryBytes), countStyle: .memory)
                let usable = device.usable ? "usable" : "not usable (no compute queue)"
                lines.append("      \(kind) · driver \(device.driver) · Vulkan \(device.apiVersion) · \(memory) · \(usable)")
            }
        }
        lines.append("auto: \(autoDevice.map { "Vulkan · \($0.name) (\(auto))" } ?? "CPU")")
        lines.append("supported resources: \(supportedResources.isEmpty ? "none" : supportedResources.joined(separator: ", "))")
        lines.append("\(reasonCode.map { "no GPU (\($0.rawValue))" } ?? "GPU"): \(reason)")
        return lines.joined(separator: "\n")
    }
}

/// Minimal JSON writing with a fixed key order.
enum JSONText {
    /// `{"key":value,…}` from already-encoded values, in the given order.
    static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { "\(string($0.0)):\($0.1)" }.joined(separator: ",") + "}"
    }

    /// A JSON string literal (RFC 8259 escaping).
    static func string(_ value: String) -> String {
        var escaped = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case _ where scalar.value < 0x20:
                escaped += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }
}
