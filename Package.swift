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
        .library(name: "Export", targets: ["Export"]),
        .executable(name: "kiln", targets: ["kiln"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .target(name: "ContinuedProcessing"),
        // Every libpng call and every setjmp lives in this C target (SPEC §1).
        .target(
            name: "CPNG",
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z")]
        ),
        .target(name: "PNGCodec", dependencies: ["CPNG"]),
        .target(name: "Export", dependencies: ["PNGCodec"]),
        .executableTarget(
            name: "kiln",
            dependencies: [
                "Export",
                "PNGCodec",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // A tiny program the lifecycle tests send signals to.
        .executableTarget(name: "LifecycleProbe", dependencies: ["ContinuedProcessing"]),

        .testTarget(name: "ContinuedProcessingTests", dependencies: ["ContinuedProcessing"]),
        .testTarget(name: "PNGCodecTests", dependencies: ["PNGCodec"]),
        .testTarget(name: "KilnCLITests", dependencies: ["PNGCodec"]),
    ]
)
