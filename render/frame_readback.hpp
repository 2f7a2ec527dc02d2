#pragma once
// Reads frames back from the GPU without stalling the frame: each capture starts an asynchronous copy of
// the framebuffer into one of a ring of pixel-buffer objects and fences it; the pixels are taken a frame
// or two later, once the fence says the copy is done. A synchronous glReadPixels would wait for the whole
// frame to finish drawing before the CPU could go on. A framebuffer of another size than the ring's (a
// window resized while recording) is first scaled into a fixed-size one, letterboxed, so the frames
// keep their size.
#include <epoxy/gl.h>

#include <cstdint>
#include <vector>

namespace nbody {

// Where an image of src_w x src_h lands when scaled, keeping its aspect, into the middle of dst_w x
// dst_h (bars above and below, or left and right). x, y: lower left corner in pixels.
struct Letterbox {
    int x = 0, y = 0, w = 0, h = 0;
};
Letterbox letterbox(int src_w, int src_h, int dst_w, int dst_h);

struct FrameReadback {
    struct Slot {
        GLuint pbo = 0;
        GLsync fence = nullptr;  // set while a copy into this slot is pending
    };
    std::vector<Slot> slots;
    int width = 0, height = 0;
    int oldest = 0;                      // the slot taken next
    int pending = 0;                     // slots with a copy in flight
    GLuint scale_fbo = 0, scale_rb = 0;  // width x height, made on the first capture of another size

    // Makes a ring of `ring` buffers for w x h RGBA8 frames. Throws nbody::Error.
    void init(int w, int h, int ring = 3);
    bool full() const { return pending == int(slots.size()); }
    // Starts copying framebuffer fbo (0 = the window's back buffer) into the next free slot; the ring
    // must not be full (take one first). src_w x src_h: the framebuffer's size; another size than the
    // ring's is scaled into it, letterboxed on black (the framebuffer must then be single-sampled).
    void capture(GLuint fbo, int src_w, int src_h);
    // Copies the oldest pending frame (rows bottom-up, as GL stores them) into out, if its copy is done
    // or `wait` is set (then it blocks until it is). Returns false if nothing was taken.
    bool take(std::vector<std::uint8_t>& out, bool wait);
    void shutdown();
};

}  // namespace nbody
