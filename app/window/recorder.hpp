#pragma once
// Recording the window to a video: frames read back through a ring of pixel buffers (no stall in the
// frame), handed to the H.264 encoder's own thread. The window steps the simulation a fixed number of
// steps per recorded frame and the video has a fixed frame rate, so it plays smoothly however fast the
// window drew it.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/video_encoder.hpp"
#include "render/frame_readback.hpp"

namespace nbody {

struct RecordSettings {
    int fps = 30;
    bool include_panel = false;  // the panel (and the window's other ImGui drawing) in the video
};

class Recorder {
  public:
    RecordSettings settings;

    bool active() const { return encoder_ != nullptr; }
    // Starts recording frames of w x h (the framebuffer) into path. Throws nbody::Error (no ffmpeg, an
    // unwritable path, an odd size).
    void start(const std::string& path, int w, int h);
    // Reads framebuffer fbo (0: the window's back buffer, w x h) as the next video frame, and hands the
    // frames whose copies are done to the encoder. A framebuffer of another size (the window resized) is
    // scaled into the video's size, letterboxed, so the video goes on at its size. Returns false (and
    // stops, with stop()'s message in last_message()) if the encoder failed.
    bool capture(unsigned fbo, int w, int h);
    int width() const { return readback_.width; }
    int height() const { return readback_.height; }
    // Takes the frames still in flight, finishes the video; returns one line for the panel: where it
    // went and how many frames, or why it failed (no file left then).
    std::string stop();
    std::int64_t frames_captured() const { return captured_; }
    std::string path() const { return encoder_ ? encoder_->path() : std::string(); }
    // The encoder's failure while recording ("" while it works).
    std::string error() const { return encoder_ ? encoder_->error() : std::string(); }
    const std::string& last_message() const { return message_; }

  private:
    void drain();  // waits for every copy in flight and hands it to the encoder

    std::unique_ptr<VideoEncoder> encoder_;
    FrameReadback readback_;
    std::vector<std::uint8_t> frame_;
    std::int64_t captured_ = 0;
    std::string message_;
};

}  // namespace nbody
