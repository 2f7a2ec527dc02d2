#include "potential_view.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "gl_util.hpp"
#include "shader_locations.hpp"
#include "shaders/potential_frag.hpp"
#include "shaders/tonemap_vert.hpp"

namespace nbody {

std::vector<Vec4<double>> potential_grid_points(const Camera& cam, int cols, int rows, int w, int h) {
    std::vector<Vec4<double>> pts;
    pts.reserve(std::size_t(cols) * std::size_t(rows));
    for (int j = 0; j < rows; ++j) {
        // Pixel rows count from the top; grid row 0 is the bottom (GL texture order).
        float y = (1.0f - (float(j) + 0.5f) / float(rows)) * float(h);
        for (int i = 0; i < cols; ++i) {
            float x = (float(i) + 0.5f) / float(cols) * float(w);
            glm::vec3 p = cam.unproject_on_focus_plane(x, y, w, h);
            pts.push_back({p.x, p.y, p.z, 0.0});
        }
    }
    return pts;
}

PotentialRange potential_range(const std::vector<float>& phi) {
    PotentialRange r;
    float lo = std::numeric_limits<float>::max(), hi = -lo;
    for (float x : phi) {
        if (!std::isfinite(x)) continue;
        lo = std::min(lo, x);
        hi = std::max(hi, x);
    }
    if (lo > hi) return r;  // nothing finite
    r.lo = lo;
    r.hi = hi > lo ? hi : lo + std::max(std::abs(lo) * 1e-3f, 1e-12f);  // a flat grid: any small span
    r.log_depth = r.hi < 0;
    return r;
}

float potential_shade(float phi, const PotentialRange& r) {
    // -log(depth) grows with phi like phi itself: the deepest point stays at the bottom of the map.
    return r.log_depth ? -std::log(std::max(-phi, -r.hi)) : phi;
}

void PotentialView::init() {
    program = compile_program(shaders::kTonemapVert, shaders::kPotentialFrag, "potential");
    glCreateVertexArrays(1, &vao);
    label_object(GL_VERTEX_ARRAY, vao, "potential.vao");
}

void PotentialView::upload(const std::vector<float>& phi, int cols_, int rows_) {
    if (cols_ <= 0 || rows_ <= 0 || phi.size() != std::size_t(cols_) * std::size_t(rows_)) return;
    if (cols_ != cols || rows_ != rows || texture == 0) {
        if (texture) glDeleteTextures(1, &texture);
        glCreateTextures(GL_TEXTURE_2D, 1, &texture);
        glTextureStorage2D(texture, 1, GL_R32F, cols_, rows_);
        glTextureParameteri(texture, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
        glTextureParameteri(texture, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
        glTextureParameteri(texture, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTextureParameteri(texture, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
        label_object(GL_TEXTURE, texture, "potential.grid");
        cols = cols_;
        rows = rows_;
    }
    range = potential_range(phi);
    // The texture holds each point's place on the colour map, so the shader's mapping stays linear.
    std::vector<float> shade(phi.size());
    for (std::size_t i = 0; i < phi.size(); ++i) shade[i] = potential_shade(phi[i], range);
    glTextureSubImage2D(texture, 0, 0, 0, cols, rows, GL_RED, GL_FLOAT, shade.data());
    check_gl("uploading the potential grid");
}

void PotentialView::draw(GLuint target, int w, int h) const {
    if (!texture || w <= 0 || h <= 0) return;
    glBindFramebuffer(GL_FRAMEBUFFER, target);
    glViewport(0, 0, w, h);
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(program);
    glBindTextureUnit(0, texture);
    glUniform2f(potential_loc::range, potential_shade(range.lo, range), potential_shade(range.hi, range));
    glUniform1f(potential_loc::opacity, opacity);
    glUniform1f(potential_loc::levels, levels);
    glUniform3fv(potential_loc::ramp, kRampStops, &potential_ramp_stops()[0].r);
    glBindVertexArray(vao);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glBindVertexArray(0);
    glUseProgram(0);
    glDisable(GL_BLEND);
}

void PotentialView::shutdown() {
    if (texture) glDeleteTextures(1, &texture);
    if (vao) glDeleteVertexArrays(1, &vao);
    if (program) glDeleteProgram(program);
    *this = PotentialView{};
}

}  // namespace nbody
