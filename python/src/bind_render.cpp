// Simulation.render and the notebook's display of a Simulation: the bodies drawn offscreen through EGL
// (no window, no X server) by the renderer `nbody render` uses, with its look options.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <optional>

#include "bindings.hpp"
#include "render/offscreen_renderer.hpp"
#include "sim/choice.hpp"
#include "sim/error.hpp"

namespace nbody::python {
namespace {

struct RenderArgs {
    int width = 640, height = 360;
    FrameLook look;
};

Image render_image(PySimulation& s, const RenderArgs& a) {
    validate_look(a.look, a.width, a.height);
    auto l = s.lock();
    py::gil_scoped_release release;
    OffscreenRenderer r;
    try {
        r.start(a.width, a.height, a.look, s.state(), s.params());
    } catch (const Error& e) {
        throw RunFailure(e.what());  // no EGL device here: a fact of the machine, not of the arguments
    }
    return r.frame(s.backend());
}

py::array_t<std::uint8_t> rgb_array(const Image& img) {
    py::array_t<std::uint8_t> out({py::ssize_t(img.height), py::ssize_t(img.width), py::ssize_t{3}});
    std::uint8_t* dst = out.mutable_data();
    const std::size_t pixels = std::size_t(img.width) * std::size_t(img.height);
    for (std::size_t i = 0; i < pixels; ++i) std::memcpy(dst + 3 * i, &img.rgba[4 * i], 3);
    return out;
}

}  // namespace

void bind_render(py::class_<PySimulation>& c) {
    c.def(
        "render",
        [](PySimulation& s, int width, int height, std::optional<float> size, float brightness,
           float exposure, const std::string& color, const std::string& splat, bool tone_map, float yaw,
           float pitch, float zoom, bool vectors, bool acc_vectors, int potential) {
            RenderArgs a;
            a.width = width, a.height = height;
            a.look.size_px = size.value_or(0.0f);
            a.look.brightness = brightness, a.look.exposure = exposure;
            a.look.color = parse_choice(color, "--color", {"speed", "mass", "white"}, parse_color_mode);
            a.look.splat = parse_choice(splat, "--splat", {"auto", "sprites", "compute"}, parse_splat_mode);
            a.look.tone_map = tone_map;
            a.look.yaw_deg = yaw, a.look.pitch_deg = pitch, a.look.zoom = zoom;
            a.look.vectors = vectors, a.look.acc_vectors = acc_vectors;
            a.look.potential = potential;
            return rgb_array(render_image(s, a));
        },
        py::arg("width") = 640, py::arg("height") = 360, py::arg("size") = py::none(),
        py::arg("brightness") = 1.0f, py::arg("exposure") = 1.0f, py::arg("color") = "speed",
        py::arg("splat") = "auto", py::arg("tone_map") = true, py::arg("yaw") = 34.0f,
        py::arg("pitch") = 26.0f, py::arg("zoom") = 1.0f, py::arg("vectors") = false,
        py::arg("acc_vectors") = false, py::arg("potential") = 0,
        R"doc(The bodies as an (height, width, 3) uint8 RGB image, drawn offscreen (EGL, no window) as
`nbody render` draws them; the camera fits the bodies. size: sprite diameter in pixels (None: by N);
color: speed, mass or white; splat: auto, sprites or compute; yaw, pitch in degrees; zoom > 0;
vectors: velocity arrows; acc_vectors: acceleration arrows; potential: the potential-field view on a
grid this many points wide (16..1024, 0: off). RuntimeError where no EGL device can be opened.)doc");
    c.def(
        "_repr_png_",
        [](PySimulation& s) {
            const std::vector<std::uint8_t> png = encode_png(render_image(s, RenderArgs{}));
            return py::bytes(reinterpret_cast<const char*>(png.data()), png.size());
        },
        "The bodies as a 640x360 PNG: how Jupyter displays a Simulation.");
}

}  // namespace nbody::python
