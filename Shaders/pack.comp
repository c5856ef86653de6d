#version 450
#extension GL_GOOGLE_include_directive : require
// pack — the render stage's exit: float32 RGBA → canonical integer RGBA.
//
//     out.c = isnan(f) ? 0 : floor(clamp(f, 0, 1) * scale + 0.5),   scale = maxValue
//
// Round half up, written as floor(x + 0.5) because GLSL's round() leaves the
// direction of halves to the implementation. `precise` forbids fusing the
// multiply-add, so every step is correctly rounded and the result is
// bit-identical to the CPU kernel (Sources/Compute/Kernels/PackKernel.swift).

#include "pixels.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Source { vec4 pixels[]; } source;
layout(std430, set = 0, binding = 1) writeonly buffer Destination { uint words[]; } destination;

void main() {
    uint i = pixelIndex();
    if (i >= parameters.pixelCount) {
        return;
    }
    vec4 value = source.pixels[parameters.first + i];
    // clamp() of NaN is undefined in SPIR-V: replace NaN explicitly.
    vec4 clamped = mix(clamp(value, 0.0, 1.0), vec4(0.0), isnan(value));
    precise vec4 scaled = clamped * parameters.scale + 0.5;
    uvec4 samples = uvec4(floor(scaled));
    if (parameters.sixteenBit != 0u) {
        destination.words[2u * i] = samples.r | (samples.g << 16);
        destination.words[2u * i + 1u] = samples.b | (samples.a << 16);
    } else {
        destination.words[i] = samples.r | (samples.g << 8) | (samples.b << 16) | (samples.a << 24);
    }
}
