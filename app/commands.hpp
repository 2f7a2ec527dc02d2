#pragma once
// The subcommands of `nbody`. Each module adds its flags to a CLI11 app and runs from a plain options
// struct, returning the process exit code. main.cpp only parses and dispatches.
namespace CLI {
class App;
}

namespace nbody {

// Parses argv and runs the chosen command: no subcommand opens the window (when built with it),
// `run`, `bench`, `render`. Prints one "nbody: error: ..." line on bad input and returns non-zero.
// Exposed (not only main) so tests can drive the whole command line in-process.
int nbody_main(int argc, const char* const* argv);

}  // namespace nbody
