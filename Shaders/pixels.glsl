// Shared by every per-pixel kernel: the dispatch shape and the push constants.
//
// The host dispatches ceil(pixelCount / 256) workgroups folded into a 2-D grid
// (x ≤ 65535, the minimum maxComputeWorkGroupCount every device supports), so
// large images fit; invocations past the last pixel return at once, which is
// what handles sizes that are not multiples of the workgroup size.

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout(push_constant) uniform Parameters {
    uint pixelCount;  // pixels in the image
    uint sixteenBit;  // 0: 8 bits per channel, 1: 16 bits per channel
    float scale;      // unpack: 1 / maxValue; pack: maxValue (computed on the host, same as the CPU kernel)
    uint first;       // the float pixel of index 0 in the float binding: a binding's start must be aligned
                      // (minStorageBufferOffsetAlignment), a strip's rows need not be
} parameters;

// The pixel this invocation handles; ≥ pixelCount means none.
uint pixelIndex() {
    return gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + gl_GlobalInvocationID.x;
}
