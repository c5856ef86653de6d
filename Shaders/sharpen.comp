#version 450
#extension GL_GOOGLE_include_directive : require
// sharpen — unsharp mask on straight color, alpha kept: with the source o and
// b, its Gaussian blur (binding 2, premultiplied) unpremultiplied (o where the
// blur is transparent), d = o − b and
//     c = o + amount·d·w,  w = clamp(|d| / threshold − 1, 0, 1)  (1 when threshold is 0);
// clamped to 0…1. The ramp keeps c continuous in d, so rounding differences
// between backends cannot flip a pixel. Why straight color: the CPU twin.
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
    vec4 original = load(p.x, p.y);
    if (original.a < transparentAlpha) {
        store(p, vec4(0.0));
        return;
    }
    vec4 blurred = loadAuxiliary(p.x, p.y);
    vec3 difference = original.rgb - (blurred.a >= transparentAlpha ? unpremultiply(blurred).rgb : original.rgb);
    float threshold = pass.floats[0].y;
    vec3 weight = threshold > 0.0 ? clamp(abs(difference) / threshold - 1.0, 0.0, 1.0) : vec3(1.0);
    vec3 c = original.rgb + pass.floats[0].x * difference * weight;
    store(p, vec4(clamp(c, 0.0, 1.0), original.a));
}
