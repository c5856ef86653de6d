#version 450
#extension GL_GOOGLE_include_directive : require
// unpack — the render stage's entry: canonical integer RGBA → float32 RGBA.
//
//     out.c = float(in.c) * scale,   scale = Float(1) / Float(maxValue)  (255 or 65535)
//
// One multiplication by a host-computed constant (correctly rounded on every
// Vulkan device), so the result is bit-identical to the CPU kernel
// (Sources/Compute/Kernels/UnpackKernel.swift) and `pack` recovers every value.
// Samples are read as 32-bit words (no 16-bit storage feature needed): one word
// per 8-bit pixel, two per 16-bit pixel (little-endian halves: R|G, B|A).

#include "pixels.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Source { uint words[]; } source;
layout(std430, set = 0, binding = 1) writeonly buffer Destination { vec4 pixels[]; } destination;

void main() {
    uint i = pixelIndex();
    if (i >= parameters.pixelCount) {
        return;
    }
    uvec4 samples;
    if (parameters.sixteenBit != 0u) {
        uint rg = source.words[2u * i];
        uint ba = source.words[2u * i + 1u];
        samples = uvec4(rg & 0xFFFFu, rg >> 16, ba & 0xFFFFu, ba >> 16);
    } else {
        uint rgba = source.words[i];
        samples = uvec4(rgba & 0xFFu, (rgba >> 8) & 0xFFu, (rgba >> 16) & 0xFFu, rgba >> 24);
    }
    destination.pixels[parameters.first + i] = vec4(samples) * parameters.scale;
}
