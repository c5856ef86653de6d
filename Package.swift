// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Kiln",
    products: [
        // The continued-processing task model; outside programs depend on it by this name.
        .library(name: "ContinuedProcessing", targets: ["ContinuedProcessing"]),
        // Imaging layer: PNG decode/encode.
        .library(name: "PNGCodec", targets: ["PNGCodec"]),
        // Export layer: inputs → plan → outputs.
        // Compute layer: device discovery, Vulkan and CPU backends.
        .library(name: "Devices", targets: ["Devices"]),
        .library(name: "Compute", targets: ["Compute"]),
        // Render layer: the operations of SPEC §4, each with a CPU kernel and a shader.
        .library(name: "Render", targets: ["Render"]),
        .library(name: "Export", targets: ["Export"]),
        .executable(name: "kiln", targets: ["kiln"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Property-based tests (random operation lists and parameters), test targets only.
        .package(url: "https://github.com/x-sheep/swift-property-based", exact: "2.0.1"),
    ],
    targets: [
        .target(name: "ContinuedProcessing", dependencies: ["Devices"]),
        // Every libpng call and every setjmp lives in this C target (SPEC §1).
        .target(
            name: "CPNG",
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z"), .linkedLibrary("isal"), .linkedLibrary("deflate")]
        ),
        .target(name: "PNGCodec", dependencies: ["CPNG"]),
        // Colour conversion (SPEC §4 output profiles): a thin C shim over lcms2, and its Swift API.
        .target(name: "CColor", linkerSettings: [.linkedLibrary("lcms2"), .linkedLibrary("z")]),
        .target(name: "Color", dependencies: ["CColor", "PNGCodec"]),
        // Vulkan headers only (VK_NO_PROTOTYPES): the loader is dlopen'ed at run time, never linked.
        .target(name: "CVulkan", linkerSettings: [.linkedLibrary("dl")]),
        // SPIR-V of Shaders/*.comp, committed as C arrays (Scripts/shaders regenerates them).
        .target(name: "CShaders"),
        // Vulkan loader, instance and physical-device discovery and classification (SPEC §3); no imaging.
        .target(name: "Devices", dependencies: ["CVulkan"]),
        .target(name: "Compute", dependencies: ["Devices", "CVulkan", "CShaders", "PNGCodec"]),
        .target(name: "Render", dependencies: ["Compute", "CVulkan", "CShaders", "PNGCodec", "Color"]),
        .target(name: "Export", dependencies: ["ContinuedProcessing", "PNGCodec", "Compute", "Render", "Color"]),
        .executableTarget(
            name: "kiln",
            dependencies: [
                "Export",
                "Render",
                "Compute",
                "Devices",
                "PNGCodec",
                "Color",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            plugins: ["BuildInfo"]
        ),
        // Stamps kiln with the commit it was built from (`kiln --version`).
        .plugin(name: "BuildInfo", capability: .buildTool()),
        // Times the render stage alone, for Scripts/bench.
        .executableTarget(name: "kiln-bench", dependencies: ["Render", "Compute", "PNGCodec"]),
        // A tiny program the lifecycle tests send signals to.
        .executableTarget(name: "LifecycleProbe", dependencies: ["ContinuedProcessing"]),

        // Helpers shared by the test targets (forged PNG bytes, seeds, what the machine's Vulkan offers,
        // generators of random operation lists for the property tests).
        .target(
            name: "KilnTestSupport",
            dependencies: ["Devices", "Render", .product(name: "PropertyBased", package: "swift-property-based")],
            path: "Tests/Support"
        ),
        .testTarget(name: "ContinuedProcessingTests", dependencies: ["ContinuedProcessing"]),
        .testTarget(name: "PNGCodecTests", dependencies: ["PNGCodec", "KilnTestSupport"]),
        .testTarget(name: "ComputeTests", dependencies: ["Compute", "Devices", "PNGCodec", "KilnTestSupport"]),
        .testTarget(
            name: "RenderTests",
            dependencies: ["Render", "Compute", "PNGCodec", "KilnTestSupport",
                           .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(name: "ExportTests", dependencies: ["Export", "Render", "Compute", "PNGCodec", "KilnTestSupport"]),
        .testTarget(
            name: "KilnCLITests",
            dependencies: ["PNGCodec", "Export", "Render", "KilnTestSupport",
                           .product(name: "PropertyBased", package: "swift-property-based")]
        ),
    ]
)
