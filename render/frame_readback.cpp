#include "frame_readback.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "gl_util.hpp"
#include "sim/error.hpp"

namespace nbody {

Letterbox letterbox(int src_w, int src_h, int dst_w, int dst_h) {
    if (src_w <= 0 || src_h <= 0 || dst_w <= 0 || dst_h <= 0) return {};
    Letterbox b;
    // Compare src_w / src_h with dst_w / dst_h in integers: the wider one fills the width.
    if (std::int64_t(src_w) * dst_h >= std::int64_t(dst_w) * src_h) {
        b.w = dst_w;
        b.h = int((std::int64_t(src_h) * dst_w + src_w / 2) / src_w);
    } else {
        b.h = dst_h;
        b.w = int((std::int64_t(src_w) * dst_h + src_h / 2) / src_h);
    }
    b.w = std::max(1, std::min(b.w, dst_w));
    b.h = std::max(1, std::min(b.h, dst_h));
    b.x = (dst_w - b.w) / 2;
    b.y = (dst_h - b.h) / 2;
    return b;
}

void FrameReadback::init(int w, int h, int ring) {
    shutdown();
    width = w;
    height = h;
    slots.resize(std::size_t(ring < 1 ? 1 : ring));
    const auto bytes = GLsizeiptr(std::size_t(w) * std::size_t(h) * 4);
    for (Slot& s : slots) {
        glCreateBuffers(1, &s.pbo);
        glNamedBufferStorage(s.pbo, bytes, nullptr, GL_MAP_READ_BIT | GL_CLIENT_STORAGE_BIT);
        label_object(GL_BUFFER, s.pbo, "readback.pbo");
    }
    check_gl("allocating the frame readback buffers");
}

void FrameReadback::capture(GLuint fbo, int src_w, int src_h) {
    if (full()) throw Error("frame readback: every buffer still pending (take one first)");
    Slot& s = slots[std::size_t((oldest + pending) % int(slots.size()))];
    GLuint read_fbo = fbo;
    if (src_w != width || src_h != height) {
        if (!scale_fbo) {
            glCreateRenderbuffers(1, &scale_rb);
            glNamedRenderbufferStorage(scale_rb, GL_RGBA8, width, height);
            label_object(GL_RENDERBUFFER, scale_rb, "readback.scaled");
            glCreateFramebuffers(1, &scale_fbo);
            glNamedFramebufferRenderbuffer(scale_fbo, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, scale_rb);
            label_object(GL_FRAMEBUFFER, scale_fbo, "readback.scaled");
            if (glCheckNamedFramebufferStatus(scale_fbo, GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
                throw Error("frame readback: the scaling framebuffer is incomplete");
        }
        const GLfloat black[4] = {0, 0, 0, 1};
        glClearNamedFramebufferfv(scale_fbo, GL_COLOR, 0, black);
        if (fbo == 0) glNamedFramebufferReadBuffer(0, GL_BACK);
        const Letterbox b = letterbox(src_w, src_h, width, height);
        glBlitNamedFramebuffer(fbo, scale_fbo, 0, 0, src_w, src_h, b.x, b.y, b.x + b.w, b.y + b.h,
                               GL_COLOR_BUFFER_BIT, GL_LINEAR);
        read_fbo = scale_fbo;
    }
    glBindFramebuffer(GL_READ_FRAMEBUFFER, read_fbo);
    if (read_fbo == 0) glReadBuffer(GL_BACK);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, s.pbo);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    // Into the bound pack buffer: returns at once, the copy runs after the frame's drawing.
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    if (read_fbo != fbo) glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
    s.fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    ++pending;
}

bool FrameReadback::take(std::vector<std::uint8_t>& out, bool wait) {
    if (pending == 0) return false;
    Slot& s = slots[std::size_t(oldest)];
    const GLuint64 timeout = wait ? GLuint64(10'000'000'000) : 0;  // 10 s: a GPU hang, not a slow frame
    const GLenum r = glClientWaitSync(s.fence, GL_SYNC_FLUSH_COMMANDS_BIT, timeout);
    if (r == GL_TIMEOUT_EXPIRED) {
        if (wait) throw Error("frame readback: the GPU did not finish a frame in 10 s");
        return false;
    }
    if (r == GL_WAIT_FAILED) throw Error("frame readback: waiting for the copy failed");
    glDeleteSync(s.fence);
    s.fence = nullptr;
    const std::size_t bytes = std::size_t(width) * std::size_t(height) * 4;
    out.resize(bytes);
    const void* p = glMapNamedBufferRange(s.pbo, 0, GLsizeiptr(bytes), GL_MAP_READ_BIT);
    if (!p) throw Error("frame readback: mapping the pixel buffer failed");
    std::memcpy(out.data(), p, bytes);
    glUnmapNamedBuffer(s.pbo);
    oldest = (oldest + 1) % int(slots.size());
    --pending;
    return true;
}

void FrameReadback::shutdown() {
    for (Slot& s : slots) {
        if (s.fence) glDeleteSync(s.fence);
        if (s.pbo) glDeleteBuffers(1, &s.pbo);
    }
    if (scale_fbo) glDeleteFramebuffers(1, &scale_fbo);
    if (scale_rb) glDeleteRenderbuffers(1, &scale_rb);
    *this = FrameReadback{};
}

}  // namespace nbody
