#version 450 core
// Writes the body index + 1 inside the point's disc; the depth test keeps the nearest body.
flat in uint v_id;
layout(location = 0) out uint o_id;

void main() {
    vec2 p = gl_PointCoord * 2.0 - 1.0;
    if (dot(p, p) > 1.0) discard;
    o_id = v_id;
}
