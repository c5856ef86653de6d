#version 450
#extension GL_GOOGLE_include_directive : require
// adjust — per pixel, straight alpha kept (grayscale is saturation 0):
//     c = c·gain + brightness;  c = (c − ½)·contrast + ½;  c = Y + (c − Y)·saturation
//     (Y: Rec. 709 luma);  c = clamp(c)^(1/gamma) when gamma ≠ 1;  clamp to 0…1.
// floats = (gain, brightness, contrast, saturation), (1/gamma); ints = (applyGamma).
// CPU twin: Sources/Render/Kernels/AdjustKernel.swift.
layout(local_size_x = 16, local_size_y = 16) in;
#include "pass.glsl"

void main() {
    ivec2 p;
    if (!outputPixel(p)) {
        return;
    }
    vec4 f = pass.floats[0];
    vec4 pixel = load(p.x, p.y);
    vec3 c = pixel.rgb * f.x + f.y;
    c = (c - 0.5) * f.z + 0.5;
    float luma = dot(c, vec3(0.2126, 0.7152, 0.0722));
    c = luma + (c - luma) * f.w;
    if (pass.ints[0].x != 0) {
        c = pow(clamp(c, 0.0, 1.0), vec3(pass.floats[1].x));
    }
    store(p, vec4(clamp(c, 0.0, 1.0), pixel.a));
}
