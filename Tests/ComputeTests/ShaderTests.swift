import Foundation
import Testing

@Suite("Shaders")
struct ShaderTests {
    /// Sources/CShaders must be exactly what glslc makes of Shaders/*.comp.
    @Test("Scripts/shaders --check: committed SPIR-V matches the GLSL sources")
    func committedSPIRVIsCurrent() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [root.appendingPathComponent("Scripts/shaders").path, "--check"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // The script exits 69 when glslc or spirv-val is missing.
        let problem = process.terminationStatus == 69
            ? "glslc or spirv-val is missing, so the shaders cannot be checked"
            : "Scripts/shaders --check failed"
        #expect(process.terminationStatus == 0, "\(problem):\n\(text)")
    }
}
