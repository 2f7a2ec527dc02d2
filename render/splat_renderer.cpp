#include "splat_renderer.hpp"

#include "gl_util.hpp"
#include "shader_locations.hpp"
#include "shaders/body_look_glsl.hpp"
#include "shaders/splat_comp.hpp"
#include "shaders/splat_resolve_comp.hpp"

namespace nbody {

bool use_compute_splat(const ParticleSettings& s, std::size_t n) {
    switch (s.splat) {
        case SplatMode::sprites:
            return false;
        case SplatMode::compute:
            return true;
        default:
            return n >= kSplatAutoN && s.size_px <= kSplatMaxPx;
    }
}

void SplatRenderer::init() {
    splat_program = compile_compute_program({shaders::kBodyLookGlsl, shaders::kSplatComp}, "splat");
    resolve_program = compile_compute_program({shaders::kSplatResolveComp}, "splat_resolve");
    check_gl("splat renderer init");
}

void SplatRenderer::draw(const ParticleRenderer& bodies, const Camera& cam, const ParticleSettings& s,
                         const ToneMapper& tone) {
    const int w = tone.width, h = tone.height;
    if (w <= 0 || h <= 0) return;
    if (w != width || h != height || accum == 0) {
        if (accum) glDeleteTextures(1, &accum);
        glCreateTextures(GL_TEXTURE_2D_ARRAY, 1, &accum);
        glTextureStorage3D(accum, 1, GL_R32UI, w, h, 3);
        label_object(GL_TEXTURE, accum, "splat.accum");
        width = w;
        height = h;
        check_gl("creating the splat accumulation images");
    }
    const GLuint zero = 0;
    glClearTexImage(accum, 0, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);

    if (bodies.count > 0) {
        set_body_look_uniforms(splat_program, cam, s, bodies.stats, w, h);
        glProgramUniform1ui(splat_program, splat_loc::count, GLuint(bodies.count));
        glProgramUniform2f(splat_program, splat_loc::viewport, float(w), float(h));
        glProgramUniform1f(splat_program, splat_loc::fixed_one, kSplatFixedOne);
        glProgramUniform1f(splat_program, splat_loc::max_px, kSplatMaxPx);
        glUseProgram(splat_program);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, bodies.pos_vbo);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, bodies.vel_vbo);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, bodies.acc_vbo);
        glBindImageTexture(0, accum, 0, GL_TRUE, 0, GL_READ_WRITE, GL_R32UI);
        glDispatchCompute(GLuint((bodies.count + 255) / 256), 1, 1);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, 0);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, 0);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, 0);
    }
    // The atomics must land before the resolve reads them.
    glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);

    glUseProgram(resolve_program);
    // Brightness applies here, not per body, so it cannot overflow the fixed-point sums.
    glProgramUniform1f(resolve_program, splat_resolve_loc::scale, s.brightness / kSplatFixedOne);
    glBindImageTexture(0, accum, 0, GL_TRUE, 0, GL_READ_ONLY, GL_R32UI);
    glBindImageTexture(1, tone.color, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA16F);
    glDispatchCompute(GLuint((w + 15) / 16), GLuint((h + 15) / 16), 1);
    glBindImageTexture(0, 0, 0, GL_FALSE, 0, GL_READ_ONLY, GL_R32UI);
    glBindImageTexture(1, 0, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA16F);
    glUseProgram(0);
    // The tone mapper samples the float image next, and a screenshot may read the framebuffer.
    glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_FRAMEBUFFER_BARRIER_BIT);
}

void SplatRenderer::shutdown() {
    if (accum) glDeleteTextures(1, &accum);
    if (resolve_program) glDeleteProgram(resolve_program);
    if (splat_program) glDeleteProgram(splat_program);
    *this = SplatRenderer{};
}

}  // namespace nbody
