// The `nbody` executable: everything lives in nbody_main so tests can run the same command line.
#include "commands.hpp"

int main(int argc, char** argv) {
    return nbody::nbody_main(argc, argv);
}
