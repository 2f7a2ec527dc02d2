#include "particle_renderer.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <glm/gtc/type_ptr.hpp>
#include <vector>

#include "gl_util.hpp"
#include "shader_locations.hpp"
#include "shaders/body_look_glsl.hpp"
#include "shaders/particle_frag.hpp"
#include "shaders/particle_vert.hpp"

namespace nbody {

void ParticleRenderer::init() {
    program = compile_program({shaders::kBodyLookGlsl, shaders::kParticleVert}, {shaders::kParticleFrag},
                              "particle");
    glCreateVertexArrays(1, &vao);
    label_object(GL_VERTEX_ARRAY, vao, "particle.vao");
    // Attribute formats never change; only the buffers bound to binding points 0 and 1 do.
    for (GLuint a = 0; a < 3; ++a) {
        glEnableVertexArrayAttrib(vao, a);
        glVertexArrayAttribFormat(vao, a, 4, GL_FLOAT, GL_FALSE, 0);
        glVertexArrayAttribBinding(vao, a, a);
    }
    glCreateBuffers(1, &phi_buf);
    label_object(GL_BUFFER, phi_buf, "particle.phi");
    upload_potentials({});
    check_gl("particle renderer init");
}

void ParticleRenderer::upload_potentials(const std::vector<float>& phi) {
    // One zero when there are none: a bound buffer of length 1 that reads as "not computed".
    const float none = 0.0f;
    const float* data = phi.empty() ? &none : phi.data();
    const std::size_t n = phi.empty() ? 1 : phi.size();
    glNamedBufferData(phi_buf, GLsizeiptr(n * sizeof(float)), data, GL_DYNAMIC_DRAW);
    check_gl("uploading the bodies' potentials");
}

void ParticleRenderer::bind_potentials() const {
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 4, phi_buf);
}

void ParticleRenderer::resize(std::size_t n) {
    if (n > capacity) {
        if (pos_vbo) glDeleteBuffers(1, &pos_vbo);
        if (vel_vbo) glDeleteBuffers(1, &vel_vbo);
        if (acc_vbo) glDeleteBuffers(1, &acc_vbo);
        GLuint ids[3];
        glCreateBuffers(3, ids);
        pos_vbo = ids[0];
        vel_vbo = ids[1];
        acc_vbo = ids[2];
        auto bytes = GLsizeiptr(n * sizeof(Vec4<float>));
        // DYNAMIC_STORAGE so CPU backends can glBufferSubData; CUDA writes through interop regardless.
        glNamedBufferStorage(pos_vbo, bytes, nullptr, GL_DYNAMIC_STORAGE_BIT);
        glNamedBufferStorage(vel_vbo, bytes, nullptr, GL_DYNAMIC_STORAGE_BIT);
        glNamedBufferStorage(acc_vbo, bytes, nullptr, GL_DYNAMIC_STORAGE_BIT);
        label_object(GL_BUFFER, pos_vbo, "bodies.pos_mass");
        label_object(GL_BUFFER, vel_vbo, "bodies.vel");
        label_object(GL_BUFFER, acc_vbo, "bodies.acc");
        acc_valid = false;
        glVertexArrayVertexBuffer(vao, 0, pos_vbo, 0, sizeof(Vec4<float>));
        glVertexArrayVertexBuffer(vao, 1, vel_vbo, 0, sizeof(Vec4<float>));
        glVertexArrayVertexBuffer(vao, 2, acc_vbo, 0, sizeof(Vec4<float>));
        capacity = n;
        static std::atomic<std::uint64_t> allocations{0};
        generation = ++allocations;
        check_gl("allocating body buffers (out of GPU memory?)");
    }
    count = n;
}

std::size_t ParticleRenderer::upload(const Vec4<float>* pos_mass, const Vec4<float>* vel, std::size_t n,
                                     const Vec4<float>* acc) {
    resize(n);
    auto bytes = GLsizeiptr(n * sizeof(Vec4<float>));
    glNamedBufferSubData(pos_vbo, 0, bytes, pos_mass);
    std::size_t total = std::size_t(bytes);
    if (vel) {
        glNamedBufferSubData(vel_vbo, 0, bytes, vel);
        total += std::size_t(bytes);
    }
    acc_valid = acc != nullptr;
    if (acc) {
        glNamedBufferSubData(acc_vbo, 0, bytes, acc);
        total += std::size_t(bytes);
    }
    return total;
}

void set_body_look_uniforms(GLuint program, const Camera& cam, const ParticleSettings& s,
                            const BodyStats& stats, int w, int h) {
    namespace loc = body_look_loc;
    glm::mat4 view = cam.view();
    glm::mat4 proj = cam.projection(float(w) / float(h));
    glProgramUniformMatrix4fv(program, loc::view, 1, GL_FALSE, glm::value_ptr(view));
    glProgramUniformMatrix4fv(program, loc::proj, 1, GL_FALSE, glm::value_ptr(proj));
    // The slider is in pixels at a 1080-line viewport, so screenshots of any size look alike.
    glProgramUniform1f(program, loc::size_px, s.size_px * float(h) / 1080.0f);
    glProgramUniform1f(program, loc::focus_dist, cam.distance);
    glProgramUniform1f(program, loc::median_mass, stats.median_mass);
    glProgramUniform1f(program, loc::brightness, s.brightness);
    glProgramUniform1i(program, loc::color_mode, int(s.color));
    ColorRange cr = color_range(s, stats);
    glProgramUniform2f(program, loc::color_range, cr.lo, cr.hi);
    glProgramUniform1f(program, loc::min_light, s.min_light);
    static_assert(sizeof(Rgb) == 3 * sizeof(float), "the ramp uploads as vec3[]");
    glProgramUniform3fv(program, loc::ramp, kRampStops, &ramp_stops(s.colormap)[0].r);
    GLuint starts[kMaxGroups] = {};
    Rgb colors[kMaxGroups];
    const std::size_t groups = std::min<std::size_t>(stats.groups.starts.size(), kMaxGroups);
    for (std::size_t g = 0; g < kMaxGroups; ++g) {
        starts[g] = g < groups ? GLuint(stats.groups.starts[g]) : 0;
        colors[g] = group_color(int(g));
    }
    glProgramUniform1uiv(program, loc::group_starts, kMaxGroups, starts);
    glProgramUniform1i(program, loc::group_count, GLint(std::max<std::size_t>(groups, 1)));
    glProgramUniform3fv(program, loc::group_colors, kMaxGroups, &colors[0].r);
    // The point-size limit applies to both paths, so they agree on the largest body.
    GLfloat range[2] = {1.0f, 64.0f};
    glGetFloatv(GL_ALIASED_POINT_SIZE_RANGE, range);
    glProgramUniform2f(program, loc::px_limits, s.min_px,
                       std::min(range[1], std::max(s.min_px, s.max_px * float(h) / 1080.0f)));
    // A disc is as large as its sphere looks, up to what GL can draw as one point.
    glProgramUniform1f(program, loc::radius_px, s.draw_radii ? 0.5f * float(h) * proj[1][1] : 0.0f);
    glProgramUniform1f(program, loc::disc_max_px, range[1]);
}

void ParticleRenderer::draw(const Camera& cam, const ParticleSettings& s, int w, int h,
                            bool discs_only) const {
    if (count == 0 || w <= 0 || h <= 0) return;
    glViewport(0, 0, w, h);
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ONE);
    glEnable(GL_PROGRAM_POINT_SIZE);
    set_body_look_uniforms(program, cam, s, stats, w, h);
    glProgramUniform1i(program, particle_loc::discs_only, discs_only ? 1 : 0);
    glUseProgram(program);
    glBindVertexArray(vao);
    glDrawArrays(GL_POINTS, 0, GLsizei(count));
    glBindVertexArray(0);
    glUseProgram(0);
    glDisable(GL_BLEND);
}

void ParticleRenderer::shutdown() {
    if (pos_vbo) glDeleteBuffers(1, &pos_vbo);
    if (vel_vbo) glDeleteBuffers(1, &vel_vbo);
    if (acc_vbo) glDeleteBuffers(1, &acc_vbo);
    if (phi_buf) glDeleteBuffers(1, &phi_buf);
    if (vao) glDeleteVertexArrays(1, &vao);
    if (program) glDeleteProgram(program);
    *this = ParticleRenderer{};
}

}  // namespace nbody
