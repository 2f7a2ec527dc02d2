// softening2 for Params, out of line so that interaction.hpp, which every device kernel includes, needs no
// sim/params.hpp.
#include "interaction.hpp"

#include "sim/params.hpp"

namespace nbody {

template <typename T>
T softening2(const Params& p) {
    return softening2<T>(p.softening);
}

template float softening2<float>(const Params&);
template double softening2<double>(const Params&);

}  // namespace nbody
