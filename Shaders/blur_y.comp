#version 450
#extension GL_GOOGLE_include_directive : require
// blur_y — the vertical pass of the Gaussian blur (blur.glsl).
#define VERTICAL
#include "blur.glsl"
