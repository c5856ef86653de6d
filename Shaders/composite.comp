#version 450
#extension GL_GOOGLE_include_directive : require
// composite — the watermark (binding 2, straight alpha, already at its size)
// over the image, "source over" with the mark's alpha times `opacity`:
//     a = am + ab·(1 − am),   c = (cm·am + cb·ab·(1 − am)) / a   (0 where a = 0).
// ints = (left, top, mark width, mark height); floats = (opacity)
// CPU twin: Sources/Render/Kernels/CompositeKernel.swift.
layout(local_size_x = 16, local_size_y = 16) in;
#define AUXILIARY
#include "pass.glsl"

void main() {
    ivec2 p;
    if (!outputPixel(p)) {
        return;
    }
    vec4 base = load(p.x, p.y);
    ivec4 mark = pass.ints[0];
    ivec2 m = p - mark.xy;
    if (any(lessThan(m, ivec2(0))) || any(greaterThanEqual(m, mark.zw))) {
        store(p, base);
        return;
    }
    vec4 over = loadAuxiliary(m.x, m.y);
    float am = over.a * pass.floats[0].x;
    float keep = base.a * (1.0 - am);
    float a = am + keep;
    vec3 c = a > 0.0 ? (over.rgb * am + base.rgb * keep) / a : vec3(0.0);
    store(p, vec4(clamp(c, 0.0, 1.0), a));
}
