#include "render/scene_renderer.hpp"

namespace nbody {

void SceneRenderer::init() {
    particles.init();
    tone.init();
    splat.init();
}

void SceneRenderer::shutdown() {
    splat.shutdown();
    particles.shutdown();
    tone.shutdown();
}

void SceneRenderer::draw(const Camera& camera, const ParticleSettings& ps, const ToneSettings& ts, GLuint target,
                         int w, int h) {
    tone.begin(w, h);
    if (uses_compute_splat(ps)) {
        splat.draw(particles, camera, ps, tone);
    } else {
        particles.draw(camera, ps, w, h);
    }
    tone.resolve(target, ts);
}

}  // namespace nbody
