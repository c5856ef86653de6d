// blur — one axis of a separable Gaussian (blur_x.comp, blur_y.comp): weights exp(−k²/2σ²) for
// |k| ≤ radius, normalized; pixels past the edges repeat the edge pixel.
// A workgroup is one run of RUN pixels along the axis: it loads the run and its
// apron (radius pixels each side) into shared memory once, so every source
// pixel is read from device memory about once instead of 2·radius + 1 times.
// Radii above `maxApron` read device memory directly. The weights
// exp(−k²/2σ²), k = 0…radius, are computed once per workgroup into shared
// memory (radii up to `maxWeights`, σ ≈ 341), not once per tap per pixel.
// RUN, the run's length, is 256 unless the including shader sets it: blur_y_short.comp
// runs 32 rows, for tiles a quarter of a run tall or less (strips after a strong shrink,
// a wide image's short strips), where runs of 256 spent 256 invocations and loads on each
// column for a few pixels (ComputeKernel picks the program per dispatch).
// ints = (unused, radius, premultiply input, unpremultiply output); floats = (sigma)
// CPU twin: Sources/Render/Kernels/BlurKernel.swift.
#ifndef RUN
#define RUN 256
#endif
#ifdef VERTICAL
layout(local_size_x = 1, local_size_y = RUN) in;
#define ALONG y
#define ACROSS x
#else
layout(local_size_x = RUN, local_size_y = 1) in;
#define ALONG x
#define ACROSS y
#endif
#include "pass.glsl"

const int run = RUN;
const int maxApron = 64;
shared vec4 window[run + 2 * maxApron];
const int maxWeights = 1024;
shared float weights[maxWeights + 1];

void main() {
    ivec4 options = pass.ints[0];
#ifdef VERTICAL
    const bool vertical = true;
#else
    const bool vertical = false;
#endif
    int radius = options.y;
    int n = vertical ? pass.images.y : pass.images.x;
    // A workgroup is a run along the axis, one pixel wide across it.
    int along = pass.tile.ALONG + int(gl_GlobalInvocationID.ALONG);
    int across = pass.tile.ACROSS + int(gl_WorkGroupID.ACROSS);
    int runStart = pass.tile.ALONG + int(gl_WorkGroupID.ALONG) * run;
    int runLength = vertical ? pass.tile.w : pass.tile.z;
    float sigma = pass.floats[0].x;
    bool cached = radius <= maxApron;
    bool tabulated = radius <= maxWeights;
    if (tabulated) {
        for (int k = int(gl_LocalInvocationID.ALONG); k <= radius; k += run) {
            weights[k] = exp(-float(k * k) / (2.0 * sigma * sigma));
        }
    }
    if (cached) {
        // Stay inside the tile's footprint (what is bound), which the last run may overhang.
        int last = min(pass.tile.ALONG + runLength - 1 + radius, n - 1);
        for (int k = int(gl_LocalInvocationID.ALONG); k < run + 2 * radius; k += run) {
            int j = clamp(runStart - radius + k, 0, last);
            vec4 v = vertical ? load(across, j) : load(j, across);
            window[k] = options.z != 0 ? premultiply(v) : v;
        }
    }
    // radius is the same for the whole workgroup: uniform control flow.
    if (tabulated) {
        barrier();
    }
    if (int(gl_GlobalInvocationID.ALONG) >= runLength) {
        return;
    }
    vec4 sum;
    float total;
    if (cached) {
        // The common case: window and weights in shared memory; the taps at
        // ±k share a weight (one multiply for both).
        int center = along - runStart + radius;
        float w0 = weights[0];
        sum = w0 * window[center];
        total = w0;
        for (int k = 1; k <= radius; k++) {
            float w = weights[k];
            sum += w * (window[center - k] + window[center + k]);
            total += 2.0 * w;
        }
    } else {
        sum = vec4(0.0);
        total = 0.0;
        for (int k = -radius; k <= radius; k++) {
            float w;
            if (tabulated) {
                w = weights[abs(k)];
            } else {
                w = exp(-float(k * k) / (2.0 * sigma * sigma));
            }
            int j = clamp(along + k, 0, n - 1);
            vec4 v = vertical ? load(across, j) : load(j, across);
            sum += w * (options.z != 0 ? premultiply(v) : v);
            total += w;
        }
    }
    sum /= total;
    ivec2 p = vertical ? ivec2(across, along) : ivec2(along, across);
    store(p, options.w != 0 ? unpremultiply(sum) : sum);
}
