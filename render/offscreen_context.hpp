#pragma once
// An OpenGL 4.5 core context with no window or X server: EGL on the device platform (Mesa llvmpipe,
// or the NVIDIA driver), rendering into an RGBA8 framebuffer object of a fixed size.
#include <epoxy/gl.h>

#include <string>

namespace nbody {

struct OffscreenContext {
    void* display = nullptr;  // EGLDisplay
    void* context = nullptr;  // EGLContext
    void* surface = nullptr;  // EGLSurface (1x1 pbuffer where surfaceless contexts are missing)
    GLuint fbo = 0;
    GLuint color = 0;  // RGBA8 renderbuffer
    int width = 0, height = 0;
    std::string device;  // which EGL device was picked, for logs

    // Creates the context and a w x h target, makes both current. Throws nbody::Error with one line
    // ("no EGL device found", "EGL device platform unsupported", ...). NBODY_EGL_DEVICE=k picks device k.
    void init(int w, int h);
    void shutdown();
};

// True if an EGL device with OpenGL 4.5 core can be opened here (tests skip otherwise); why says why not.
bool offscreen_available(std::string* why);

}  // namespace nbody
