#pragma once
// Which file a name really is: its device and inode, after following symbolic links. Two names are one
// file when these agree, whatever the spelling ("./in.csv", a link, a hard link, another mount of the
// same directory). Used to keep a run's outputs off its inputs: a rename onto an input would replace it.
#include <optional>
#include <string>
#include <vector>

namespace nbody {

struct FileIdentity {
    unsigned long long device = 0, inode = 0;
    bool operator==(const FileIdentity& o) const { return device == o.device && inode == o.inode; }
};

// The identity of what `path` names (links followed), or nothing if it does not exist (or cannot be
// looked at: then it cannot be an input we read either).
std::optional<FileIdentity> file_identity(const std::string& path);

// A file the command reads, named by the flag that gave it ("--input", "FILE").
struct NamedInput {
    std::string flag, path;
};

// Throws nbody::Error (one line naming both flags and the file) if writing the output `path` (given by
// `flag`) would replace one of `inputs`: `path` itself, or `path` + each of `side_suffixes` (a log's
// growing ".partial" file), is the same file as an input. Empty paths are skipped.
void check_output_is_no_input(const std::string& flag, const std::string& path,
                              const std::vector<NamedInput>& inputs,
                              const std::vector<std::string>& side_suffixes = {});

// Throws nbody::Error if an input lies directly in the directory `dir` (given by `flag`), i.e. a file
// written there by name could be it.
void check_directory_holds_no_input(const std::string& flag, const std::string& dir,
                                    const std::vector<NamedInput>& inputs);

// Whether `path` lies directly in the directory `dir` (compared by identity, links followed).
bool lies_in_directory(const std::string& path, const std::string& dir);

}  // namespace nbody
