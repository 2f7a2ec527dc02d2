#pragma once
// What every process of an mpirun line must agree on before its first collective: the command line as
// parsed, not as spelled. `--dt 0.01` and `--dt 1e-2`, `--dt=0.01`, or the same flags in another order
// are one run; `--dt 0.01` and `--dt 0.02` are not (mpi/cluster.hpp: check_same_arguments).
#include <cstdint>
#include <string>

namespace CLI {
class App;
}

namespace nbody {

// A hash of the parsed command line: the subcommand path and every option given, with its values, in
// name order; a value that reads whole as a number counts by that number (its double), any other as
// its text. Call after app.parse() succeeded.
std::uint64_t parsed_arguments_hash(const CLI::App& app);

// A hash of a failed parse's outcome (its message), so processes that all failed alike agree.
std::uint64_t failed_parse_hash(const std::string& message);

}  // namespace nbody
