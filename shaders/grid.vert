#version 450 core
// The reference grid in the plane z = 0, where the planetary and galaxy scenarios orbit (GL_LINES, no
// vertex attributes): 2 u_half + 1 lines of constant x and as many of constant y, u_spacing world units
// apart around u_center (a multiple of the spacing), then the x axis (red) and the y axis (green) through
// the origin. Locations: grid_loc.
layout(location = 0) uniform mat4 u_view;
layout(location = 1) uniform mat4 u_proj;
layout(location = 2) uniform vec2 u_center;
layout(location = 3) uniform float u_spacing;
layout(location = 4) uniform int u_half;

out vec4 v_color;

void main() {
    int line = gl_VertexID / 2;
    float side = (gl_VertexID % 2 == 0) ? -1.0 : 1.0;
    int per = 2 * u_half + 1;
    float extent = float(u_half) * u_spacing;
    vec2 p;
    vec4 c = vec4(0.55, 0.62, 0.75, 0.28);
    if (line < per) {
        p = vec2(u_center.x + float(line - u_half) * u_spacing, u_center.y + side * extent);
    } else if (line < 2 * per) {
        p = vec2(u_center.x + side * extent, u_center.y + float(line - per - u_half) * u_spacing);
    } else if (line == 2 * per) {
        p = vec2(u_center.x + side * extent, 0.0);
        c = vec4(1.0, 0.4, 0.35, 0.75);
    } else {
        p = vec2(0.0, u_center.y + side * extent);
        c = vec4(0.4, 1.0, 0.45, 0.75);
    }
    gl_Position = u_proj * u_view * vec4(p, 0.0, 1.0);
    v_color = c;
}
