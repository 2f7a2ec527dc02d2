#version 450 core
// The reference grid's lines, blended by their alpha over the black that the tone-mapped picture then covers.
in vec4 v_color;
layout(location = 0) out vec4 o_color;

void main() { o_color = v_color; }
