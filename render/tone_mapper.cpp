#include "tone_mapper.hpp"

#include "gl_util.hpp"
#include "shader_locations.hpp"
#include "shaders/tonemap_frag.hpp"
#include "shaders/tonemap_vert.hpp"

namespace nbody {

void ToneMapper::init() {
    program = compile_program(shaders::kTonemapVert, shaders::kTonemapFrag, "tonemap");
    glCreateVertexArrays(1, &vao);
    label_object(GL_VERTEX_ARRAY, vao, "tonemap.vao");
}

void ToneMapper::begin(int w, int h) {
    if (w != width || h != height || fbo == 0) {
        if (fbo) glDeleteFramebuffers(1, &fbo);
        if (color) glDeleteTextures(1, &color);
        glCreateTextures(GL_TEXTURE_2D, 1, &color);
        glTextureStorage2D(color, 1, GL_RGBA16F, w, h);
        glTextureParameteri(color, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTextureParameteri(color, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
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

void ToneMapper::resolve(GLuint dst_fbo, const ToneSettings& s) const {
    glBindFramebuffer(GL_FRAMEBUFFER, dst_fbo);
    glViewport(0, 0, width, height);
    glDisable(GL_BLEND);
    glDisable(GL_DEPTH_TEST);
    glUseProgram(program);
    glBindTextureUnit(0, color);
    glUniform1f(tonemap_loc::exposure, s.exposure);
    glUniform1i(tonemap_loc::tone_map, s.tone_map ? 1 : 0);
    glUniform1f(tonemap_loc::gamma, s.gamma > 0 ? s.gamma : 1.0f);
    glUniform1f(tonemap_loc::white, s.white > 0 ? s.white : 1.0f);
    glBindVertexArray(vao);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glBindVertexArray(0);
    glUseProgram(0);
}

void ToneMapper::shutdown() {
    if (fbo) glDeleteFramebuffers(1, &fbo);
    if (color) glDeleteTextures(1, &color);
    if (vao) glDeleteVertexArrays(1, &vao);
    if (program) glDeleteProgram(program);
    *this = ToneMapper{};
}

}  // namespace nbody
