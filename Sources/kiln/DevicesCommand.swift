import ArgumentParser
import Foundation
import VulkanCompute

/// `kiln devices [--json]`: the machine's Vulkan devices, which one `auto`
/// would pick, `supportedResources`, and why there is no GPU when there is none.
struct Devices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List Vulkan devices and show which one --device auto would use.",
        discussion: """
            Set KILN_VULKAN_LIBRARY to use another Vulkan loader; the loader's own \
            VK_DRIVER_FILES / VK_ICD_FILENAMES select drivers.
            """
    )

    @Flag(name: .long, help: "Print one JSON object: devices, supportedResources, auto, reasonCode, reason.")
    var json = false

    func run() async throws {
        DeviceProbe.endWithParent()
        let report = DeviceDiscovery.current
        print(json ? report.json : report.text)
        // Out before the libraries' destructors run at exit: a driver that crashes in one lost the buffered report.
        fflush(nil)  // every output stream: stdout is a C global Swift 6 will not name from here
    }
}
