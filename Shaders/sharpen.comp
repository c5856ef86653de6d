#version 450
#extension GL_GOOGLE_include_directive : require
// sharpen — unsharp mask on premultiplied color, alpha kept: with the source o
// and its Gaussian blur b (binding 2, premultiplied), d = o − b and
//     c = o + amount·d where |d| ≥ threshold, else o;  then unpremultiply (clamped).
// floats = (amount, threshold)
// CPU twin: Sources/Render/Kernels/SharpenKernel.swift.
layout(local_size_x = 16, local_size_y = 16) in;
#define AUXILIARY
#include "pass.glsl"

void main() {
    ivec2 p;
    if (!outputPixel(p)) {
        return;
    }
    vec4 original = premultiply(load(p.x, p.y));
    vec3 difference = original.rgb - loadAuxiliary(p.x, p.y).rgb;
    vec3 keep = vec3(lessThan(abs(difference), vec3(pass.floats[0].y)));
    vec3 c = original.rgb + pass.floats[0].x * difference * (1.0 - keep);
    store(p, unpremultiply(vec4(c, original.a)));
}
