#include "recorder.hpp"

#include <utility>

#include "sim/error.hpp"

namespace nbody {

void Recorder::start(const std::string& path, int w, int h) {
    require_ffmpeg("recording");
    encoder_ = std::make_unique<VideoEncoder>(path, w, h, settings.fps);
    try {
        // Three buffers: the copy of frame k runs while frames k+1 and k+2 draw.
        readback_.init(w, h, 3);
    } catch (...) {
        encoder_.reset();
        throw;
    }
    captured_ = 0;
    message_.clear();
}

void Recorder::drain() {
    // Oldest first, so the video keeps the frames' order.
    while (readback_.take(frame_, true)) {
        encoder_->push(std::move(frame_), true);
        frame_ = {};
    }
}

bool Recorder::capture(unsigned fbo, int w, int h) {
    if (!encoder_) return false;
    if (!encoder_->error().empty()) {
        message_ = stop();
        return false;
    }
    // Finished copies first: never more than the ring in flight.
    while (readback_.pending > 0 && readback_.take(frame_, readback_.full())) {
        encoder_->push(std::move(frame_), true);
        frame_ = {};
    }
    readback_.capture(GLuint(fbo), w, h);
    ++captured_;
    return true;
}

std::string Recorder::stop() {
    if (!encoder_) return message_;
    std::string out;
    try {
        drain();
        readback_.shutdown();
        const std::string path = encoder_->path();
        encoder_->finish();  // joins the encoder thread: every frame is written now
        const std::int64_t frames = encoder_->frames_written();
        out = "recorded " + std::to_string(frames) + " frames (" + std::to_string(settings.fps) +
              " fps) to " + path;
    } catch (const std::exception& e) {
        out = std::string("recording failed, no video written: ") + e.what();
    }
    readback_.shutdown();
    encoder_.reset();
    message_ = out;
    return out;
}

}  // namespace nbody
