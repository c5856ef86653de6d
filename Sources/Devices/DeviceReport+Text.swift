import Foundation

extension DeviceReport {
    /// The one-line JSON object of `kiln devices --json` (SPEC §5).
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        // Encoding plain strings, numbers and arrays cannot fail.
        let data = (try? encoder.encode(self)) ?? Data()
        return String(decoding: data, as: UTF8.self)
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
                lines.append("      \(kind) · driver \(device.driver) · Vulkan \(device.apiVersion) · \(memory) · \(device.usable ? "usable" : "not usable (no compute queue)")")
            }
        }
        lines.append("auto: \(autoDevice.map { "Vulkan · \($0.name) (\(auto))" } ?? "CPU")")
        lines.append("supported resources: \(supportedResources.isEmpty ? "none" : supportedResources.joined(separator: ", "))")
        lines.append("\(reasonCode.map { "no GPU (\($0.rawValue))" } ?? "GPU"): \(reason)")
        return lines.joined(separator: "\n")
    }
}
