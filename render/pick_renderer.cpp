#include "pick_renderer.hpp"

#include <algorithm>
#include <vector>

#include "gl_util.hpp"
#include "shader_locations.hpp"
#include "shaders/body_look_glsl.hpp"
#include "shaders/pick_frag.hpp"
#include "shaders/pick_vert.hpp"

namespace nbody {

void PickRenderer::init() {
    program = compile_program({shaders::kBodyLookGlsl, shaders::kPickVert}, {shaders::kPickFrag}, "pick");
}

std::int64_t PickRenderer::pick(const ParticleRenderer& bodies, const Camera& cam, const ParticleSettings& s,
                                int x, int y, int w, int h) {
    if (bodies.count == 0 || w <= 0 || h <= 0 || x < 0 || y < 0 || x >= w || y >= h) return -1;
    if (w != width || h != height || fbo == 0) {
        if (fbo) glDeleteFramebuffers(1, &fbo);
        if (ids) glDeleteTextures(1, &ids);
        if (depth) glDeleteTextures(1, &depth);
        glCreateTextures(GL_TEXTURE_2D, 1, &ids);
        glTextureStorage2D(ids, 1, GL_R32UI, w, h);
        label_object(GL_TEXTURE, ids, "pick.ids");
        glCreateTextures(GL_TEXTURE_2D, 1, &depth);
        glTextureStorage2D(depth, 1, GL_DEPTH_COMPONENT32F, w, h);
        label_object(GL_TEXTURE, depth, "pick.depth");
        glCreateFramebuffers(1, &fbo);
        glNamedFramebufferTexture(fbo, GL_COLOR_ATTACHMENT0, ids, 0);
        glNamedFramebufferTexture(fbo, GL_DEPTH_ATTACHMENT, depth, 0);
        label_object(GL_FRAMEBUFFER, fbo, "pick.fbo");
        width = w;
        height = h;
        check_gl("creating the picking target");
    }
    GLint prev_fbo = 0;
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &prev_fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glViewport(0, 0, w, h);
    const GLuint zero[4] = {0, 0, 0, 0};
    glClearNamedFramebufferuiv(fbo, GL_COLOR, 0, zero);
    glClearNamedFramebufferfi(fbo, GL_DEPTH_STENCIL, 0, 1.0f, 0);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDisable(GL_BLEND);
    glEnable(GL_PROGRAM_POINT_SIZE);
    set_body_look_uniforms(program, cam, s, bodies.stats, w, h);
    bodies.bind_potentials();
    glProgramUniform1f(program, pick_loc::min_px, min_px);
    glUseProgram(program);
    glBindVertexArray(bodies.vao);
    glDrawArrays(GL_POINTS, 0, GLsizei(bodies.count));
    glBindVertexArray(0);
    glUseProgram(0);
    glDisable(GL_DEPTH_TEST);

    // GL rows start at the bottom.
    int x0 = std::max(0, x - radius_px), x1 = std::min(w - 1, x + radius_px);
    int gy = h - 1 - y;
    int y0 = std::max(0, gy - radius_px), y1 = std::min(h - 1, gy + radius_px);
    int rw = x1 - x0 + 1, rh = y1 - y0 + 1;
    std::vector<GLuint> px(std::size_t(rw) * std::size_t(rh));
    glReadPixels(x0, y0, rw, rh, GL_RED_INTEGER, GL_UNSIGNED_INT, px.data());
    glBindFramebuffer(GL_FRAMEBUFFER, GLuint(prev_fbo));
    std::int64_t best = -1;
    int best_d2 = 1 << 30;
    for (int j = 0; j < rh; ++j) {
        for (int i = 0; i < rw; ++i) {
            GLuint id = px[std::size_t(j) * std::size_t(rw) + std::size_t(i)];
            int dx = x0 + i - x, dy = y0 + j - gy, d2 = dx * dx + dy * dy;
            if (id != 0 && d2 <= radius_px * radius_px && d2 < best_d2) {
                best_d2 = d2;
                best = std::int64_t(id) - 1;
            }
        }
    }
    check_gl("picking");
    return best < std::int64_t(bodies.count) ? best : -1;
}

void PickRenderer::shutdown() {
    if (fbo) glDeleteFramebuffers(1, &fbo);
    if (ids) glDeleteTextures(1, &ids);
    if (depth) glDeleteTextures(1, &depth);
    if (program) glDeleteProgram(program);
    *this = PickRenderer{};
}

PickedGpuBody read_body(const ParticleRenderer& bodies, std::size_t i) {
    PickedGpuBody b;
    if (i >= bodies.count) return b;
    auto off = GLintptr(i * sizeof(Vec4<float>));
    glGetNamedBufferSubData(bodies.pos_vbo, off, sizeof(Vec4<float>), &b.pos_mass);
    glGetNamedBufferSubData(bodies.vel_vbo, off, sizeof(Vec4<float>), &b.vel);
    return b;
}

}  // namespace nbody
