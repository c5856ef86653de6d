#version 450
#extension GL_GOOGLE_include_directive : require
// sharpen — unsharp mask on premultiplied color, alpha kept: with the source o
// and its Gaussian blur b (binding 2, premultiplied), d = o − b and
//     c = o + amount·d·w,  w = clamp(|d| / threshold − 1, 0, 1)  (1 when threshold is 0);
// then unpremultiply (clamped). The ramp keeps c continuous in d, so rounding
// differences between backends cannot flip a pixel.
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
    float threshold = pass.floats[0].y;
    vec3 weight = threshold > 0.0 ? clamp(abs(difference) / threshold - 1.0, 0.0, 1.0) : vec3(1.0);
    vec3 c = original.rgb + pass.floats[0].x * difference * weight;
    store(p, unpremultiply(vec4(c, original.a)));
}
