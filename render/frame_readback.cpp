#include "frame_readback.hpp"

#include <cstring>

#include "gl_util.hpp"
#include "sim/error.hpp"

namespace nbody {

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

void FrameReadback::capture(GLuint fbo) {
    if (full()) throw Error("frame readback: every buffer still pending (take one first)");
    Slot& s = slots[std::size_t((oldest + pending) % int(slots.size()))];
    glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
    if (fbo == 0) glReadBuffer(GL_BACK);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, s.pbo);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    // Into the bound pack buffer: returns at once, the copy runs after the frame's drawing.
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
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
    *this = FrameReadback{};
}

}  // namespace nbody
