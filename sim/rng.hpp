#pragma once
// A small deterministic random number generator: xoshiro256** seeded through splitmix64. The standard
// library's distributions differ between implementations, so presets draw only from this, and the same
// seed gives the same bits on every platform.
#include <cmath>
#include <cstdint>

namespace nbody {

class Rng {
  public:
    // Any seed is fine (0 included): splitmix64 spreads it over the 256-bit state.
    explicit Rng(std::uint64_t seed) {
        std::uint64_t x = seed;
        for (auto& word : s_) word = splitmix64(x);
    }

    // 64 uniformly distributed bits.
    std::uint64_t next_u64() {
        const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }

    // Uniform double in [0, 1): the top 53 bits scaled by 2^-53, so every value is exactly representable.
    double uniform() { return double(next_u64() >> 11) * 0x1.0p-53; }

    // Uniform double in [lo, hi).
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

    // Uniform double in (0, 1]: safe to take the log or a negative power of.
    double uniform_open0() { return double((next_u64() >> 11) + 1) * 0x1.0p-53; }

    // A point uniformly distributed inside the unit ball, by rejection from the cube (only +, *, compares,
    // so it is bit-identical everywhere).
    void in_unit_ball(double& x, double& y, double& z) {
        do {
            x = uniform(-1, 1);
            y = uniform(-1, 1);
            z = uniform(-1, 1);
        } while (x * x + y * y + z * z > 1.0);
    }

    // A direction uniformly distributed on the unit sphere (rejection, then normalisation; sqrt is
    // correctly rounded, so this too is bit-identical everywhere).
    void on_unit_sphere(double& x, double& y, double& z) {
        double r2 = 0;
        do {
            in_unit_ball(x, y, z);
            r2 = x * x + y * y + z * z;
        } while (r2 < 1e-12);
        const double inv = 1.0 / std::sqrt(r2);
        x *= inv;
        y *= inv;
        z *= inv;
    }

  private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    static std::uint64_t splitmix64(std::uint64_t& x) {
        std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }

    std::uint64_t s_[4];
};

}  // namespace nbody
