#version 450
#extension GL_GOOGLE_include_directive : require
// resample — one axis of a separable resize, with ImageMagick's and libvips'
// pixel-center alignment: output pixel i is centered on source coordinate
// start + (first + i + ½)·scale (start: 0, but where a source shrunk on load holds
// the picture from part of its first pixel; first: 0, but where the pass makes
// only a part of the resize, a cover's crop), and reads the source pixels j whose centers lie within
// `support` of it, weighted filter((j + ½ − center) / filterScale) and
// normalized (taps past the edges are left out). Downscaling widens the
// filter by filterScale = scale. Nearest takes the one pixel under the center.
// ints = (axis 0 x | 1 y, filter 0 nearest | 1 bilinear | 2 lanczos3, premultiply input, unpremultiply output),
//        (first output index)
// floats = (scale, support, filterScale, start)
// CPU twin: Sources/Render/Kernels/ResampleKernel.swift.
layout(local_size_x = 16, local_size_y = 16) in;
#include "pass.glsl"

const float pi = 3.14159265358979;

float sinc(float x) {
    return sin(pi * x) / (pi * x);
}

float weight(int kind, float x) {
    x = abs(x);
    if (kind == 1) {
        return max(0.0, 1.0 - x);
    }
    if (x < 1e-6) {
        return 1.0;
    }
    return x < 3.0 ? sinc(x) * sinc(x / 3.0) : 0.0;
}

void main() {
    ivec2 p;
    if (!outputPixel(p)) {
        return;
    }
    ivec4 options = pass.ints[0];
    vec4 f = pass.floats[0];
    bool vertical = options.x == 1;
    int i = vertical ? p.y : p.x;
    int n = vertical ? pass.images.y : pass.images.x;
    // precise: no fused multiply-add, so the taps are exactly those the CPU kernel picks.
    precise float center = f.w + (float(i + pass.ints[1].x) + 0.5) * f.x;
    vec4 sum = vec4(0.0);
    if (options.y == 0) {
        int j = min(int(center), n - 1);
        sum = vertical ? load(p.x, j) : load(j, p.y);
        if (options.z != 0) {
            sum = premultiply(sum);
        }
    } else {
        precise float low = center - f.y + 0.5;
        precise float high = center + f.y + 0.5;
        int start = max(int(low), 0);
        int stop = min(int(high), n);
        float total = 0.0;
        for (int j = start; j < stop; j++) {
            float w = weight(options.y, (float(j) + 0.5 - center) / f.z);
            vec4 v = vertical ? load(p.x, j) : load(j, p.y);
            if (options.z != 0) {
                v = premultiply(v);
            }
            sum += w * v;
            total += w;
        }
        sum /= total;
    }
    store(p, options.w != 0 ? unpremultiply(sum) : sum);
}
