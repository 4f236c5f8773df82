// The `#version` line (and, for GLSL ES, the precision) is the context's
// (`CurrentGlContext::glsl_header`): one body for GL 3.3 and WebGL2.
// One instanced quad per sprite; the four corners come from gl_VertexID
// (a triangle strip of 4 vertices), so there is no per-vertex buffer.
// Instance layout: SpriteInstance in batcher.rs (56 bytes, divisor 1).
layout(location = 0) in vec2 a_position; // center, world units
layout(location = 1) in vec2 a_size;     // width, height (negative mirrors)
layout(location = 2) in float a_rotation; // radians, counter-clockwise
layout(location = 3) in vec4 a_color;    // RGBA multiplier, straight alpha
layout(location = 4) in vec4 a_uv_rect;  // u0, v0 (top-left), u1, v1 (bottom-right)
layout(location = 5) in float a_shape;   // 0 quad, 1 circle

// Orthographic projection of the batch's space onto clip space:
// clip = world * u_scale + u_offset.
uniform vec2 u_scale;
uniform vec2 u_offset;

out vec2 v_uv;
out vec4 v_color;
out vec2 v_local;
flat out float v_shape;

void main() {
    // Strip order: (0,0) (1,0) (0,1) (1,1) — bottom-left, bottom-right,
    // top-left, top-right.
    vec2 corner = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1));
    vec2 local = (corner - 0.5) * a_size;
    float c = cos(a_rotation);
    float s = sin(a_rotation);
    vec2 world = a_position + vec2(c * local.x - s * local.y, s * local.x + c * local.y);
    gl_Position = vec4(world * u_scale + u_offset, 0.0, 1.0);
    // The quad's top edge samples v0 (the image's upper row), the bottom v1.
    v_uv = vec2(mix(a_uv_rect.x, a_uv_rect.z, corner.x), mix(a_uv_rect.w, a_uv_rect.y, corner.y));
    v_color = a_color;
    v_local = corner * 2.0 - 1.0;
    v_shape = a_shape;
}
