#include "video_encoder.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "process_pipe.hpp"
#include "sim/error.hpp"
#include "sim/platform/atomic_file.hpp"

namespace nbody {

std::vector<std::string> h264_encoder_argv(int w, int h, int fps, const std::string& out) {
    return {"ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgba", "-s",
            std::to_string(w) + "x" + std::to_string(h), "-r", std::to_string(fps), "-i", "-", "-c:v",
            "libx264",
            // The window records live: libx264's default "medium" preset encodes 1080p slower than the
            // window draws a million bodies (about 60 frames/s on a 16-core machine), and the frame
            // loop would wait for it; "veryfast" keeps up at a somewhat larger file for the same quality.
            "-preset", "veryfast", "-pix_fmt", "yuv420p", "--", out};
}

void require_ffmpeg(const std::string& what) {
    if (!on_path("ffmpeg")) {
        throw Error(what +
                    " needs ffmpeg on PATH (not found): install it (scripts/setup.sh does, or `apt-get "
                    "install ffmpeg`)");
    }
}

VideoEncoder::VideoEncoder(const std::string& path, int w, int h, int fps, std::size_t max_queued)
    : path_(path), w_(w), h_(h), max_queued_(std::max<std::size_t>(1, max_queued)) {
    if (w <= 0 || h <= 0 || fps <= 0) throw Error("video of " + std::to_string(w) + "x" + std::to_string(h));
    // yuv420p halves the chroma in both directions: H.264 refuses odd sizes.
    if (w % 2 || h % 2) {
        throw Error("H.264 needs an even width and height (the frames are " + std::to_string(w) + "x" +
                    std::to_string(h) + ")");
    }
    file_ = std::make_unique<AtomicFile>(path, AtomicFile::Mode::by_name);
    pipe_ = std::make_unique<ProcessPipe>(h264_encoder_argv(w, h, fps, file_->temp_path()), path);
    thread_ = std::thread([this] { run(); });
}

VideoEncoder::~VideoEncoder() {
    {
        std::lock_guard<std::mutex> lk(mutex_);
        closing_ = true;
        queue_.clear();
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
    pipe_.reset();  // closes the pipe and reaps ffmpeg
    file_.reset();  // uncommitted: the temporary goes
}

bool VideoEncoder::push(std::vector<std::uint8_t> rgba, bool bottom_up) {
    std::unique_lock<std::mutex> lk(mutex_);
    changed_.wait(lk, [&] { return queue_.size() < max_queued_ || !error_.empty() || closing_; });
    if (!error_.empty() || closing_) return false;
    queue_.push_back({std::move(rgba), bottom_up});
    changed_.notify_all();
    return true;
}

void VideoEncoder::run() {
    const std::size_t row = std::size_t(w_) * 4, bytes = row * std::size_t(h_);
    std::vector<std::uint8_t> flipped(bytes);
    for (;;) {
        Frame f;
        {
            std::unique_lock<std::mutex> lk(mutex_);
            changed_.wait(lk, [&] { return !queue_.empty() || closing_; });
            if (queue_.empty()) return;
            f = std::move(queue_.front());
            queue_.pop_front();
        }
        changed_.notify_all();
        try {
            if (f.rgba.size() != bytes) throw Error("a frame of the wrong size reached the video encoder");
            const std::uint8_t* data = f.rgba.data();
            if (f.bottom_up) {
                for (int y = 0; y < h_; ++y)
                    std::memcpy(flipped.data() + std::size_t(y) * row, data + std::size_t(h_ - 1 - y) * row,
                                row);
                data = flipped.data();
            }
            pipe_->write(data, bytes);
            ++written_;
        } catch (const std::exception& e) {
            std::lock_guard<std::mutex> lk(mutex_);
            error_ = e.what();
            queue_.clear();
            changed_.notify_all();
            return;
        }
    }
}

void VideoEncoder::finish() {
    {
        std::lock_guard<std::mutex> lk(mutex_);
        closing_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
    std::string failure = error();
    if (failure.empty()) {
        try {
            pipe_->finish();
        } catch (const std::exception& e) {
            failure = e.what();
        }
    }
    pipe_.reset();
    if (!failure.empty()) {
        file_.reset();  // the half-written temporary goes
        throw Error(failure);
    }
    file_->commit();
}

std::string VideoEncoder::error() const {
    std::lock_guard<std::mutex> lk(mutex_);
    return error_;
}

}  // namespace nbody
