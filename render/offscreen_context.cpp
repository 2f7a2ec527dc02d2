#include "offscreen_context.hpp"

#include <epoxy/egl.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gl_util.hpp"
#include "sim/error.hpp"

namespace nbody {
namespace {

bool has_ext(const char* list, const char* name) {
    if (!list) return false;
    std::size_t len = std::strlen(name);
    for (const char* p = list; (p = std::strstr(p, name)) != nullptr; p += len) {
        bool start = p == list || p[-1] == ' ';
        bool end = p[len] == ' ' || p[len] == '\0';
        if (start && end) return true;
    }
    return false;
}

std::string egl_error() {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%04x", eglGetError());
    return buf;
}

// Devices in the order to try: hardware first, Mesa's software device last, unless NBODY_EGL_DEVICE says.
std::vector<EGLDeviceEXT> ordered_devices() {
    EGLint count = 0;
    if (!eglQueryDevicesEXT(0, nullptr, &count) || count <= 0) return {};
    std::vector<EGLDeviceEXT> all(static_cast<std::size_t>(count));
    eglQueryDevicesEXT(count, all.data(), &count);
    all.resize(static_cast<std::size_t>(count));
    if (const char* pick = std::getenv("NBODY_EGL_DEVICE")) {
        int k = std::atoi(pick);
        if (k >= 0 && k < count) return {all[static_cast<std::size_t>(k)]};
    }
    std::vector<EGLDeviceEXT> hw, sw;
    for (EGLDeviceEXT d : all) {
        const char* ext = eglQueryDeviceStringEXT(d, EGL_EXTENSIONS);
        (has_ext(ext, "EGL_MESA_device_software") ? sw : hw).push_back(d);
    }
    hw.insert(hw.end(), sw.begin(), sw.end());
    return hw;
}

}  // namespace

void OffscreenContext::init(int w, int h) {
    if (w <= 0 || h <= 0 || w > 16384 || h > 16384) {
        throw Error("offscreen size " + std::to_string(w) + "x" + std::to_string(h) +
                    " is out of range (1..16384)");
    }
    const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (!has_ext(client, "EGL_EXT_device_enumeration") && !has_ext(client, "EGL_EXT_device_base")) {
        throw Error(
            "EGL has no device enumeration (EGL_EXT_device_enumeration): cannot render without a display");
    }
    if (!has_ext(client, "EGL_EXT_platform_device")) {
        throw Error("EGL device platform unsupported (EGL_EXT_platform_device missing)");
    }
    std::vector<EGLDeviceEXT> devices = ordered_devices();
    if (devices.empty()) throw Error("no EGL device found: no GPU driver or Mesa software device available");

    std::string last_problem = "no usable EGL device";
    for (EGLDeviceEXT dev : devices) {
        EGLDisplay dpy = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, dev, nullptr);
        EGLint major = 0, minor = 0;
        if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, &major, &minor)) {
            last_problem = "eglInitialize failed (" + egl_error() + ")";
            continue;
        }
        if (!eglBindAPI(EGL_OPENGL_API)) {
            eglTerminate(dpy);
            last_problem = "EGL device has no desktop OpenGL";
            continue;
        }
        bool surfaceless = has_ext(eglQueryString(dpy, EGL_EXTENSIONS), "EGL_KHR_surfaceless_context");
        const EGLint cfg_attrs[] = {EGL_SURFACE_TYPE, surfaceless ? 0 : EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                                    EGL_OPENGL_BIT, EGL_NONE};
        EGLConfig cfg = nullptr;
        EGLint ncfg = 0;
        if (!eglChooseConfig(dpy, cfg_attrs, &cfg, 1, &ncfg) || ncfg < 1) {
            eglTerminate(dpy);
            last_problem = "no EGL config with desktop OpenGL";
            continue;
        }
        const EGLint ctx_attrs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                    4,
                                    EGL_CONTEXT_MINOR_VERSION,
                                    5,
                                    EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                    EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                    EGL_NONE};
        EGLContext ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, ctx_attrs);
        if (ctx == EGL_NO_CONTEXT) {
            eglTerminate(dpy);
            last_problem = "OpenGL 4.5 core context refused (" + egl_error() + ")";
            continue;
        }
        EGLSurface surf = EGL_NO_SURFACE;
        if (!surfaceless) {
            const EGLint pb_attrs[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
            surf = eglCreatePbufferSurface(dpy, cfg, pb_attrs);
        }
        if (!eglMakeCurrent(dpy, surf, surf, ctx)) {
            if (surf != EGL_NO_SURFACE) eglDestroySurface(dpy, surf);
            eglDestroyContext(dpy, ctx);
            eglTerminate(dpy);
            last_problem = "eglMakeCurrent failed (" + egl_error() + ")";
            continue;
        }
        display = dpy;
        context = ctx;
        surface = surf;
        break;
    }
    if (!context) throw Error("cannot create an offscreen OpenGL 4.5 context: " + last_problem);

    device = gl_description();
    width = w;
    height = h;
    glCreateRenderbuffers(1, &color);
    glNamedRenderbufferStorage(color, GL_RGBA8, w, h);
    label_object(GL_RENDERBUFFER, color, "offscreen.color");
    glCreateFramebuffers(1, &fbo);
    glNamedFramebufferRenderbuffer(fbo, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color);
    label_object(GL_FRAMEBUFFER, fbo, "offscreen.fbo");
    if (glCheckNamedFramebufferStatus(fbo, GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
        shutdown();
        throw Error("offscreen framebuffer of " + std::to_string(w) + "x" + std::to_string(h) +
                    " is incomplete");
    }
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    check_gl("creating the offscreen framebuffer");
}

void OffscreenContext::shutdown() {
    if (!display) return;
    if (context) {
        if (fbo) glDeleteFramebuffers(1, &fbo);
        if (color) glDeleteRenderbuffers(1, &color);
    }
    eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (surface) eglDestroySurface(display, surface);
    if (context) eglDestroyContext(display, context);
    eglTerminate(display);
    *this = OffscreenContext{};
}

bool offscreen_available(std::string* why) {
    try {
        OffscreenContext c;
        c.init(4, 4);
        c.shutdown();
        return true;
    } catch (const Error& e) {
        if (why) *why = e.what();
        return false;
    }
}

}  // namespace nbody
