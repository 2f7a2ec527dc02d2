#version 450 core
// The reference grid's lines, blended over the tone-mapped picture by their alpha.
in vec4 v_color;
layout(location = 0) out vec4 o_color;

void main() { o_color = v_color; }
