#version 330 core
// Texture × color; the renderer blends with straight alpha
// (SRC_ALPHA, ONE_MINUS_SRC_ALPHA). A flat quad samples the 1×1 white texture.
in vec2 v_uv;
in vec4 v_color;

uniform sampler2D u_texture;

out vec4 o_color;

void main() {
    o_color = texture(u_texture, v_uv) * v_color;
}
