#include "partial_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "sim/error.hpp"

namespace nbody {

PartialFile::PartialFile(std::string path) : path_(std::move(path)) {
    check_output_path(path_);
    target_ = resolve_output_path(path_);
    partial_ = target_ + ".partial";
    cleanup_ = SignalCleanup(partial_);
    out_.open(partial_, std::ios::binary | std::ios::trunc);
    if (!out_) throw Error("cannot create '" + partial_ + "': " + std::strerror(errno));
}

PartialFile::~PartialFile() {
    if (committed_ || kept_) return;
    if (out_.is_open()) out_.close();
    std::remove(partial_.c_str());
}

void PartialFile::end_record() {
    out_.flush();
    if (!out_) throw Error("cannot write '" + partial_ + "': " + std::strerror(errno ? errno : EIO));
}

void PartialFile::finish() {
    if (finished_) return;
    out_.flush();
    const bool written = bool(out_);
    out_.close();
    if (!written || out_.fail()) {
        throw Error("cannot write '" + partial_ + "': " + std::strerror(errno ? errno : EIO));
    }
    finished_ = true;
}

void PartialFile::commit() {
    if (committed_) return;
    finish();
    if (std::rename(partial_.c_str(), target_.c_str()) != 0) {
        throw Error("cannot rename '" + partial_ + "' to '" + target_ + "': " + std::strerror(errno));
    }
    committed_ = true;
    cleanup_.release();
}

void PartialFile::keep() {
    if (out_.is_open()) out_.flush();
    kept_ = true;
    cleanup_.release();
}

}  // namespace nbody
