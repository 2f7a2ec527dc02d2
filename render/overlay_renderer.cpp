#include "overlay_renderer.hpp"

#include <algorithm>

#include "gl_util.hpp"
#include "shader_locations.hpp"
#include "shaders/body_look_glsl.hpp"
#include "shaders/overlay_frag.hpp"
#include "shaders/trail_vert.hpp"
#include "shaders/vector_vert.hpp"

namespace nbody {

void OverlayRenderer::init() {
    trail_program =
        compile_program({shaders::kBodyLookGlsl, shaders::kTrailVert}, {shaders::kOverlayFrag}, "trail");
    vector_program =
        compile_program({shaders::kBodyLookGlsl, shaders::kVectorVert}, {shaders::kOverlayFrag}, "vector");
    glCreateVertexArrays(1, &vao);
    label_object(GL_VERTEX_ARRAY, vao, "overlay.vao");
    check_gl("overlay renderer init");
}

void OverlayRenderer::record(const ParticleRenderer& bodies, const OverlaySettings& s) {
    const std::size_t n = bodies.count;
    const int k = std::clamp(s.trail_length, 2, 4096);
    if (!s.trails || n == 0) {
        reset_trails();
        return;
    }
    if (n != ring_n || k != ring_k || ring == 0) {
        if (ring) glDeleteBuffers(1, &ring);
        glCreateBuffers(1, &ring);
        glNamedBufferStorage(ring, GLsizeiptr(n * std::size_t(k) * sizeof(Vec4<float>)), nullptr, 0);
        label_object(GL_BUFFER, ring, "trails.ring");
        check_gl("allocating the trail ring (out of GPU memory? shorten the trails)");
        ring_n = n;
        ring_k = k;
        reset_trails();
    }
    head = (head + 1) % k;
    auto bytes = GLsizeiptr(n * sizeof(Vec4<float>));
    glCopyNamedBufferSubData(bodies.pos_vbo, ring, 0, GLintptr(head) * bytes, bytes);
    filled = std::min(filled + 1, k);
}

void OverlayRenderer::draw(const ParticleRenderer& bodies, const Camera& cam, const ParticleSettings& ps,
                           const OverlaySettings& s, int w, int h) const {
    if (bodies.count == 0 || w <= 0 || h <= 0) return;
    glViewport(0, 0, w, h);
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ONE);
    glBindVertexArray(vao);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, bodies.vel_vbo);
    if (s.trails && ring && filled >= 2 && ring_n == bodies.count) {
        set_body_look_uniforms(trail_program, cam, ps, bodies.stats, w, h);
        glProgramUniform1ui(trail_program, trail_loc::n, GLuint(ring_n));
        glProgramUniform1ui(trail_program, trail_loc::k, GLuint(ring_k));
        glProgramUniform1ui(trail_program, trail_loc::head, GLuint(head));
        glProgramUniform1ui(trail_program, trail_loc::filled, GLuint(filled));
        glProgramUniform1f(trail_program, trail_loc::light, s.trail_light);
        glUseProgram(trail_program);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, ring);
        glDrawArrays(GL_LINES, 0, GLsizei(2 * ring_n * std::size_t(filled - 1)));
    }
    const bool acc = s.accelerations && bodies.acc_valid;
    if (s.vectors || acc) {
        set_body_look_uniforms(vector_program, cam, ps, bodies.stats, w, h);
        glUseProgram(vector_program);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, bodies.pos_vbo);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, bodies.acc_vbo);
        for (int kind = 0; kind < 2; ++kind) {
            if (!(kind == 0 ? s.vectors : acc)) continue;
            glProgramUniform1f(vector_program, vector_loc::scale, kind == 0 ? s.vector_scale : s.accel_scale);
            glProgramUniform1i(vector_program, vector_loc::kind, kind);
            glProgramUniform1f(vector_program, vector_loc::cap, kind == 0 ? 0.0f : s.accel_cap);
            glDrawArrays(GL_LINES, 0, GLsizei(6 * bodies.count));
        }
    }
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, 0);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, 0);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, 0);
    glBindVertexArray(0);
    glUseProgram(0);
    glDisable(GL_BLEND);
    check_gl("drawing overlays");
}

void OverlayRenderer::shutdown() {
    if (ring) glDeleteBuffers(1, &ring);
    if (vao) glDeleteVertexArrays(1, &vao);
    if (trail_program) glDeleteProgram(trail_program);
    if (vector_program) glDeleteProgram(vector_program);
    *this = OverlayRenderer{};
}

}  // namespace nbody
