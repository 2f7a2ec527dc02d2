#include "tone_mapper.hpp"

#include <algorithm>

#include "gl_util.hpp"
#include "shader_locations.hpp"
#include "shaders/tonemap_frag.hpp"
#include "shaders/tonemap_vert.hpp"

namespace nbody {

void apply_classic_look(ParticleSettings& ps, ToneSettings& ts) {
    ps.color = ColorMode::classic;
    ts.tone_map = false;
    ts.auto_white = false;
    ts.bloom = 0.0f;
    ts.gamma = 1.0f;  // the sample writes its sums to the framebuffer as they are
    ts.exposure = 1.0f;
    ts.density = false;
}

void ToneMapper::init() {
    program = compile_program(shaders::kTonemapVert, shaders::kTonemapFrag, "tonemap");
    glCreateVertexArrays(1, &vao);
    label_object(GL_VERTEX_ARRAY, vao, "tonemap.vao");
    exposure.init();
}

void ToneMapper::begin(int w, int h) {
    if (w != width || h != height || fbo == 0) {
        if (fbo) glDeleteFramebuffers(1, &fbo);
        if (color) glDeleteTextures(1, &color);
        glCreateTextures(GL_TEXTURE_2D, 1, &color);
        // Four levels: the widest glow averages 8 x 8 pixels; coarser ones show their texels.
        levels = 1;
        while (levels < 4 && (std::max(w, h) >> levels) > 0) ++levels;
        glTextureStorage2D(color, levels, GL_RGBA16F, w, h);
        // Level 0 is read with texelFetch; the bloom samples the coarser levels filtered.
        glTextureParameteri(color, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
        glTextureParameteri(color, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
        glTextureParameteri(color, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTextureParameteri(color, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
        label_object(GL_TEXTURE, color, "hdr.color");
        glCreateFramebuffers(1, &fbo);
        glNamedFramebufferTexture(fbo, GL_COLOR_ATTACHMENT0, color, 0);
        label_object(GL_FRAMEBUFFER, fbo, "hdr.fbo");
        width = w;
        height = h;
        check_gl("creating the float render target");
    }
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glViewport(0, 0, w, h);
    const GLfloat black[4] = {0, 0, 0, 0};
    glClearNamedFramebufferfv(fbo, GL_COLOR, 0, black);
}

void ToneMapper::resolve(GLuint dst_fbo, const ToneSettings& s, bool over_background) {
    // Sprites drew into the target through the framebuffer, the splat through image stores.
    glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT |
                    GL_TEXTURE_UPDATE_BARRIER_BIT);
    if (s.auto_white) exposure.update(color, width, height, s.white_percentile, s.adapt, s.white_floor);
    const bool bloom = s.bloom > 0 && levels > 1;
    if (bloom) glGenerateTextureMipmap(color);
    glBindFramebuffer(GL_FRAMEBUFFER, dst_fbo);
    glViewport(0, 0, width, height);
    if (over_background) {
        glEnable(GL_BLEND);
        glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    } else {
        glDisable(GL_BLEND);
    }
    glDisable(GL_DEPTH_TEST);
    glUseProgram(program);
    glBindTextureUnit(0, color);
    glUniform1f(tonemap_loc::exposure, s.exposure);
    glUniform1i(tonemap_loc::tone_map, s.tone_map ? 1 : 0);
    glUniform1f(tonemap_loc::gamma, s.gamma > 0 ? s.gamma : 1.0f);
    glUniform1f(tonemap_loc::white, s.white > 0 ? s.white : 1.0f);
    glUniform1i(tonemap_loc::auto_white, s.auto_white ? 1 : 0);
    glUniform1f(tonemap_loc::bloom, bloom ? s.bloom : 0.0f);
    glUniform1i(tonemap_loc::bloom_levels, levels - 1);
    glUniform1i(tonemap_loc::round_bloom, s.round_bloom ? 1 : 0);
    glUniform1i(tonemap_loc::cover, over_background ? 1 : 0);
    glUniform1i(tonemap_loc::density, s.density ? 1 : 0);
    glUniform3fv(tonemap_loc::ramp, kRampStops, &ramp_stops(s.density_map)[0].r);
    // The shader declares the exposure buffer whether or not it reads it: keep one bound.
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kExposureBinding, exposure.buffer);
    glBindVertexArray(vao);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glBindVertexArray(0);
    glUseProgram(0);
    glDisable(GL_BLEND);
}

void ToneMapper::shutdown() {
    exposure.shutdown();
    if (fbo) glDeleteFramebuffers(1, &fbo);
    if (color) glDeleteTextures(1, &color);
    if (vao) glDeleteVertexArrays(1, &vao);
    if (program) glDeleteProgram(program);
    *this = ToneMapper{};
}

}  // namespace nbody
