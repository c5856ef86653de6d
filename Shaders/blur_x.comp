#version 450
#extension GL_GOOGLE_include_directive : require
// blur_x — the horizontal pass of the Gaussian blur (blur.glsl).
#include "blur.glsl"
