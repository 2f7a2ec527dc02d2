#include "scene_renderer.hpp"

namespace nbody {

void SceneRenderer::init() {
    particles.init();
    tone.init();
    splat.init();
    overlays.init();
    picker.init();
    potential.init();
    grid.init();
}

void SceneRenderer::shutdown() {
    grid.shutdown();
    potential.shutdown();
    picker.shutdown();
    overlays.shutdown();
    splat.shutdown();
    particles.shutdown();
    tone.shutdown();
}

void SceneRenderer::draw(const Camera& camera, const ParticleSettings& ps, const ToneSettings& ts,
                         GLuint target, int w, int h, const OverlaySettings& os) {
    tone.begin(w, h);
    particles.bind_potentials();
    if (uses_compute_splat(ps)) {
        splat.draw(particles, camera, ps, tone);
        // The splat leaves bodies drawn as discs to the sprites, which have no footprint cap.
        if (ps.draw_radii) particles.draw(camera, ps, w, h, true);
    } else {
        particles.draw(camera, ps, w, h);
    }
    overlays.draw(particles, camera, ps, os, w, h);
    ToneSettings look = ts;
    // Density colour is the tone mapper's: the bodies drew neutral light, the pixels get the ramp.
    look.density = ps.color == ColorMode::density;
    look.density_map = ps.colormap;
    // Discs of a radius are flat and sharp-edged: their halo needs the rounder (costlier) bloom lookup.
    look.round_bloom = ps.draw_radii;
    // The grid goes under the picture, which covers it where bodies shine (bodies in front are never
    // hidden), and stays out of the exposure and the bloom.
    const bool with_grid = os.grid_spacing > 0;
    if (with_grid) {
        glBindFramebuffer(GL_FRAMEBUFFER, target);
        glViewport(0, 0, w, h);
        glClearColor(0, 0, 0, 1);
        glClear(GL_COLOR_BUFFER_BIT);
        grid.draw(camera, os.grid_spacing, target, w, h);
    }
    tone.resolve(target, look, with_grid);
    if (os.potential) potential.draw(target, w, h);
}

}  // namespace nbody
