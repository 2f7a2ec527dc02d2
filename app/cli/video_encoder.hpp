#pragma once
// H.264 video through Debian's ffmpeg, fed from a thread of its own: the caller hands over whole RGBA
// frames and goes on drawing while the encoder thread writes them down the pipe. The video is written
// under a temporary name and renamed into place by finish(), so a failing encoder (or a crash, or
// Ctrl-C) leaves no half file.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace nbody {

class AtomicFile;
class ProcessPipe;

// ffmpeg's arguments for raw RGBA frames of w x h at fps on stdin, encoded to H.264 (yuv420p, which
// every player reads) into `out`. An argv array, no shell: the name reaches ffmpeg exactly as given.
std::vector<std::string> h264_encoder_argv(int w, int h, int fps, const std::string& out);

// Throws nbody::Error with one line saying how to get ffmpeg if it is not on PATH; `what` names the flag
// or button that needs it.
void require_ffmpeg(const std::string& what);

class VideoEncoder {
  public:
    // Starts ffmpeg writing `path` (w x h pixels at fps). Throws nbody::Error (no ffmpeg, unwritable
    // path). At most max_queued frames wait for the encoder; push() blocks beyond that, so a slow encoder
    // slows the recording down instead of dropping frames (the video keeps its fixed frame rate).
    VideoEncoder(const std::string& path, int w, int h, int fps, std::size_t max_queued = 4);
    // Not finished: abandons the video (the encoder is stopped and the temporary removed).
    ~VideoEncoder();
    VideoEncoder(const VideoEncoder&) = delete;
    VideoEncoder& operator=(const VideoEncoder&) = delete;

    // Queues one frame of w * h RGBA pixels. bottom_up: rows as OpenGL reads them (last row first); they
    // are flipped on the encoder thread. Returns false (the frame dropped) once the encoder has failed.
    bool push(std::vector<std::uint8_t> rgba, bool bottom_up);
    // Waits for the queued frames, closes the pipe and renames the video into place. Throws nbody::Error
    // (the encoder's exit status) and leaves no file if the encoder failed.
    void finish();
    // The encoder's failure so far ("" while it works).
    std::string error() const;
    std::int64_t frames_written() const { return written_; }
    int width() const { return w_; }
    int height() const { return h_; }
    const std::string& path() const { return path_; }

  private:
    struct Frame {
        std::vector<std::uint8_t> rgba;
        bool bottom_up;
    };
    void run();

    std::string path_;
    int w_, h_;
    std::size_t max_queued_;
    std::unique_ptr<AtomicFile> file_;
    std::unique_ptr<ProcessPipe> pipe_;
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<Frame> queue_;
    bool closing_ = false;
    std::string error_;
    std::atomic<std::int64_t> written_{0};
    std::thread thread_;
};

}  // namespace nbody
