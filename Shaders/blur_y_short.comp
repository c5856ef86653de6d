#version 450
#extension GL_GOOGLE_include_directive : require
// blur_y_short — the vertical pass of the Gaussian blur (blur.glsl) in runs of 32 rows, for
// short tiles: the same kernel as blur_y, another workgroup shape.
#define VERTICAL
#define RUN 32
#include "blur.glsl"
