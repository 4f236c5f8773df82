// The `#version` line (and, for GLSL ES, the precision) is the context's
// (`CurrentGlContext::glsl_header`): one body for GL 3.3 and WebGL2.
// Texture × color with premultiplied alpha: the texture's texels are
// premultiplied at load time, the instance color is straight and is
// premultiplied here; the renderer blends ONE, ONE_MINUS_SRC_ALPHA.
// A flat quad samples the 1×1 white texture. A circle (v_shape 1) keeps
// the fragments inside the inscribed ellipse, its edge covered
// proportionally over one pixel (the distance's screen-space derivative).
in vec2 v_uv;
in vec4 v_color;
in vec2 v_local;
flat in float v_shape;

uniform sampler2D u_texture;

out vec4 o_color;

void main() {
    vec4 color = vec4(v_color.rgb * v_color.a, v_color.a);
    o_color = texture(u_texture, v_uv) * color;
    if (v_shape > 0.5) {
        float d = length(v_local);
        float w = max(fwidth(d), 1e-6);
        o_color *= clamp((1.0 - d) / w + 0.5, 0.0, 1.0);
    }
}
