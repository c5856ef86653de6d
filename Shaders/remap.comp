#version 450
#extension GL_GOOGLE_include_directive : require
// remap — crop, rotate and flip: each output pixel copies one source pixel,
//     source = (a·x + b·y + c, d·x + e·y + f),   ints = (a, b, c, d), (e, f).
// CPU twin: Sources/Render/Kernels/RemapKernel.swift.
layout(local_size_x = 16, local_size_y = 16) in;
#include "pass.glsl"

void main() {
    ivec2 p;
    if (!outputPixel(p)) {
        return;
    }
    ivec4 m = pass.ints[0];
    ivec2 n = pass.ints[1].xy;
    store(p, load(m.x * p.x + m.y * p.y + m.z, m.w * p.x + n.x * p.y + n.y));
}
