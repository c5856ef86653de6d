// Shared by every pass (Sources/Compute/Passes/RenderPass.swift): push
// constants, the source (binding 0) and destination (binding 1) float images,
// the auxiliary one (binding 2) where a shader defines AUXILIARY, and the
// alpha helpers whose CPU twins are in Sources/Render/Kernels/Alpha.swift.
//
// A dispatch covers one output rectangle (`tile`); each binding holds only the
// span of its image that the rectangle needs, starting at pixel `bases.*`, so
// images larger than one storage-buffer binding run as several tiles.

layout(push_constant) uniform Pass {
    ivec4 tile;      // x, y, width, height of the output rectangle
    ivec4 images;    // source width, height; destination width, height
    ivec4 bases;     // first pixel bound at bindings 0, 1, 2; auxiliary width
    ivec4 ints[2];   // the pass's integer parameters
    vec4 floats[3];  // the pass's float parameters
} pass;

layout(std430, set = 0, binding = 0) readonly buffer Source { vec4 pixels[]; } source;
layout(std430, set = 0, binding = 1) writeonly buffer Destination { vec4 pixels[]; } destination;

// The source pixel at (x, y) (inside the source).
vec4 load(int x, int y) {
    return source.pixels[y * pass.images.x + x - pass.bases.x];
}

#ifdef AUXILIARY
layout(std430, set = 0, binding = 2) readonly buffer Auxiliary { vec4 pixels[]; } auxiliary;

// The auxiliary pixel at (x, y) (inside the auxiliary image).
vec4 loadAuxiliary(int x, int y) {
    return auxiliary.pixels[y * pass.bases.w + x - pass.bases.z];
}
#endif

void store(ivec2 p, vec4 value) {
    destination.pixels[p.y * pass.images.z + p.x - pass.bases.y] = value;
}

// This invocation's output pixel; false when it lies past the tile's edge.
bool outputPixel(out ivec2 p) {
    p = pass.tile.xy + ivec2(gl_GlobalInvocationID.xy);
    return all(lessThan(gl_GlobalInvocationID.xy, uvec2(pass.tile.zw)));
}

vec4 premultiply(vec4 c) {
    return vec4(c.rgb * c.a, c.a);
}

// Below this alpha a filtered pixel is fully transparent: what rounds to 0 at
// 16 bits (why not more: Alpha.transparent).
const float transparentAlpha = 0.5 / 65535.0;

// Premultiplied → straight: the colour divided by the alpha as filtered (past 1
// where Lanczos overshoots: why not clamped first, Alpha.unpremultiply), then
// both clamped to 0…1; transparent below transparentAlpha (NaN too).
vec4 unpremultiply(vec4 c) {
    if (!(c.a >= transparentAlpha)) {
        return vec4(0.0);
    }
    return vec4(clamp(c.rgb / c.a, vec3(0.0), vec3(1.0)), min(c.a, 1.0));
}
