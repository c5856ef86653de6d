// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Kiln",
    products: [
        // The continued-processing task model; outside programs depend on it by this name.
        .library(name: "ContinuedProcessing", targets: ["ContinuedProcessing"]),
        // Imaging layer: the image core every codec implements, the PNG codec, colour conversion.
        .library(name: "ImageCore", targets: ["ImageCore"]),
        .library(name: "PNGCodec", targets: ["PNGCodec"]),
        .library(name: "JPEGCodec", targets: ["JPEGCodec"]),
        .library(name: "WebPCodec", targets: ["WebPCodec"]),
        .library(name: "Color", targets: ["Color"]),
        // Compute layer: passes, the schedule, the CPU backend; the Vulkan backend beside it.
        .library(name: "Compute", targets: ["Compute"]),
        .library(name: "VulkanCompute", targets: ["VulkanCompute"]),
        // Render layer: the operations of SPEC §4, each with a CPU kernel and a kernel identifier.
        .library(name: "Render", targets: ["Render"]),
        // Export layer: inputs → plan → outputs.
        .library(name: "Export", targets: ["Export"]),
        .executable(name: "kiln", targets: ["kiln"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Property-based tests (random operation lists and parameters), test targets only.
        .package(url: "https://github.com/x-sheep/swift-property-based", exact: "2.0.1"),
    ],
    targets: [
        // The task model of SPEC §2. Depends on nothing: the GPU probe is handed in by its user.
        .target(name: "ContinuedProcessing"),
        // Pixels, rows, headers, metadata and the reader/writer protocols every codec implements.
        .target(name: "ImageCore", dependencies: ["Locking"]),
        // The one lock type of the modules below ContinuedProcessing (pthread-based: ThreadSanitizer sees it), and the
        // threads CPU loops run on (kiln's own, not the pool Swift concurrency's executor shares).
        .target(name: "Locking"),
        // Every libpng call and every setjmp lives in this C target (SPEC §1).
        .target(
            name: "CPNG",
            dependencies: ["CKernels"],
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z"), .linkedLibrary("isal"), .linkedLibrary("deflate")]
        ),
        .target(name: "PNGCodec", dependencies: ["ImageCore", "CPNG", "Color", "Locking"]),
        // Every libjpeg(-turbo) call and every setjmp/longjmp of the JPEG codec lives in this C target (SPEC §6.1).
        .target(name: "CJPEG", linkerSettings: [.linkedLibrary("jpeg")]),
        .target(name: "JPEGCodec", dependencies: ["ImageCore", "CJPEG", "Color"]),
        // libwebp, libwebpdemux and libwebpmux behind a C shim (their initialisers are inline ABI-version macros).
        .target(name: "CWebP", linkerSettings: [.linkedLibrary("webp"), .linkedLibrary("webpdemux"), .linkedLibrary("webpmux")]),
        .target(name: "WebPCodec", dependencies: ["ImageCore", "CWebP", "Color"]),
        // Colour conversion (SPEC §4 output profiles): a thin C shim over lcms2, and its Swift API.
        .target(name: "CColor", linkerSettings: [.linkedLibrary("lcms2")]),
        .target(name: "Color", dependencies: ["CColor", "ImageCore", "Locking"]),
        // The CPU kernels' inner loops in C (Render's and Compute's), built for AVX2 and plain x86-64 (no library);
        // its clones header serves CPNG too.
        .target(name: "CKernels"),
        // Passes, the schedule (whole image or strips, chunking, threads) and the CPU backend; no codec, no Vulkan.
        .target(name: "Compute", dependencies: ["ImageCore", "CKernels", "Locking"]),
        // Vulkan headers only (VK_NO_PROTOTYPES): the loader is dlopen'ed at run time, never linked.
        .target(name: "CVulkan", linkerSettings: [.linkedLibrary("dl")]),
        // The few libdbus-1 calls of desktop notifications: the library is dlopen'ed at run time, never linked.
        .target(name: "CDBus", linkerSettings: [.linkedLibrary("dl")]),
        // SPIR-V of Shaders/*.comp, committed as C arrays (Scripts/shaders regenerates them).
        .target(name: "SPIRV"),
        // The Vulkan backend: device discovery and classification (SPEC §3), the context, and the
        // kernels passes name, mapped to their SPIR-V.
        .target(name: "VulkanCompute", dependencies: ["Compute", "ImageCore", "CVulkan", "SPIRV", "Locking"]),
        .target(name: "Render", dependencies: ["Compute", "ImageCore", "Locking", "CKernels"]),
        // zlib's header, for the journal's CRC-32.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        .target(name: "Export",
                dependencies: ["ContinuedProcessing", "ImageCore", "PNGCodec", "JPEGCodec", "WebPCodec", "Compute", "VulkanCompute", "Render", "Color",
                               "CZlib", "Locking"]),
        .executableTarget(
            name: "kiln",
            dependencies: [
                "Export",
                "ContinuedProcessing",
                "Render",
                "Compute",
                "VulkanCompute",
                "ImageCore",
                "Color",
                "Locking",
                "CDBus",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            plugins: ["BuildInfo"]
        ),
        // Stamps kiln with the commit it was built from (`kiln --version`).
        .plugin(name: "BuildInfo", capability: .buildTool()),
        // Times the render stage alone, for Scripts/bench.
        .executableTarget(name: "kiln-bench", dependencies: ["Render", "Compute", "VulkanCompute", "ImageCore", "PNGCodec"]),
        // A tiny program the lifecycle tests send signals to.
        .executableTarget(name: "LifecycleProbe", dependencies: ["ContinuedProcessing"]),

        // Helpers shared by the test targets (forged PNG bytes, seeds, random canonical images, Vulkan
        // set up with its validation messages captured, generators of random operation lists).
        .target(
            name: "KilnTestSupport",
            dependencies: ["VulkanCompute", "Compute", "Render", "ImageCore", "PNGCodec",
                           .product(name: "PropertyBased", package: "swift-property-based")],
            path: "Tests/Support"
        ),
        .testTarget(name: "ContinuedProcessingTests", dependencies: ["ContinuedProcessing"]),
        .testTarget(name: "PNGCodecTests", dependencies: ["PNGCodec", "CPNG", "ImageCore", "KilnTestSupport"]),
        .testTarget(name: "ComputeTests", dependencies: ["Compute", "VulkanCompute", "ImageCore", "KilnTestSupport", "Locking"]),
        .testTarget(
            name: "RenderTests",
            dependencies: ["Render", "Compute", "VulkanCompute", "ImageCore", "PNGCodec", "CKernels", "KilnTestSupport",
                           .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(name: "ExportTests",
                    dependencies: ["Export", "Render", "Compute", "ImageCore", "PNGCodec", "KilnTestSupport"]),
        .testTarget(
            name: "KilnCLITests",
            dependencies: ["PNGCodec", "ImageCore", "Export", "Render", "KilnTestSupport",
                           .product(name: "PropertyBased", package: "swift-property-based")]
        ),
    ]
)
