#include "auto_exposure.hpp"

#include "gl_util.hpp"
#include "shader_locations.hpp"
#include "shaders/exposure_histogram_comp.hpp"
#include "shaders/exposure_white_comp.hpp"

namespace nbody {

void AutoExposure::init() {
    histogram_program = compile_compute_program({shaders::kExposureHistogramComp}, "exposure_histogram");
    white_program = compile_compute_program({shaders::kExposureWhiteComp}, "exposure_white");
    glCreateBuffers(1, &buffer);
    const ExposureBuffer zero{};
    glNamedBufferStorage(buffer, sizeof zero, &zero, GL_DYNAMIC_STORAGE_BIT);
    label_object(GL_BUFFER, buffer, "exposure");
    check_gl("auto exposure init");
}

void AutoExposure::update(GLuint hdr, int w, int h, float percentile, float adapt, float min_white) {
    if (w <= 0 || h <= 0) return;
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kExposureBinding, buffer);
    glUseProgram(histogram_program);
    glBindTextureUnit(0, hdr);
    glDispatchCompute(GLuint((w + 15) / 16), GLuint((h + 15) / 16), 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glUseProgram(white_program);
    glProgramUniform1f(white_program, exposure_white_loc::percentile, percentile);
    glProgramUniform1f(white_program, exposure_white_loc::adapt, primed ? adapt : 1.0f);
    glProgramUniform1f(white_program, exposure_white_loc::min_white, min_white);
    glDispatchCompute(1, 1, 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glUseProgram(0);
    primed = true;
}

ExposureBuffer AutoExposure::read() const {
    ExposureBuffer out{};
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glGetNamedBufferSubData(buffer, 0, sizeof out, &out);
    return out;
}

void AutoExposure::shutdown() {
    if (buffer) glDeleteBuffers(1, &buffer);
    if (white_program) glDeleteProgram(white_program);
    if (histogram_program) glDeleteProgram(histogram_program);
    *this = AutoExposure{};
}

}  // namespace nbody
