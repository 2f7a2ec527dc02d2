#include "grid_renderer.hpp"

#include <cmath>
#include <glm/gtc/type_ptr.hpp>

#include "gl_util.hpp"
#include "shader_locations.hpp"
#include "shaders/grid_frag.hpp"
#include "shaders/grid_vert.hpp"

namespace nbody {

void GridRenderer::init() {
    program = compile_program(shaders::kGridVert, shaders::kGridFrag, "grid");
    glCreateVertexArrays(1, &vao);
    label_object(GL_VERTEX_ARRAY, vao, "grid.vao");
    check_gl("grid renderer init");
}

void GridRenderer::draw(const Camera& cam, float spacing, GLuint target, int w, int h, int half_lines) const {
    if (!(spacing > 0) || !std::isfinite(spacing) || w <= 0 || h <= 0 || half_lines < 1) return;
    namespace loc = grid_loc;
    const glm::mat4 view = cam.view(), proj = cam.projection(float(w) / float(h));
    glProgramUniformMatrix4fv(program, loc::view, 1, GL_FALSE, glm::value_ptr(view));
    glProgramUniformMatrix4fv(program, loc::proj, 1, GL_FALSE, glm::value_ptr(proj));
    // Centred on the line nearest the target, so the lines stay put while the camera pans.
    glProgramUniform2f(program, loc::center, std::round(cam.target.x / spacing) * spacing,
                       std::round(cam.target.y / spacing) * spacing);
    glProgramUniform1f(program, loc::spacing, spacing);
    glProgramUniform1i(program, loc::half, half_lines);
    glBindFramebuffer(GL_FRAMEBUFFER, target);
    glViewport(0, 0, w, h);
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(program);
    glBindVertexArray(vao);
    glDrawArrays(GL_LINES, 0, 2 * (2 * (2 * half_lines + 1) + 2));
    glBindVertexArray(0);
    glDisable(GL_BLEND);
    check_gl("grid draw");
}

void GridRenderer::shutdown() {
    if (program) glDeleteProgram(program);
    if (vao) glDeleteVertexArrays(1, &vao);
    program = vao = 0;
}

}  // namespace nbody
