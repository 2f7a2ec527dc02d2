// The block steps' kept state between max steps (sim/integrate/block_state.hpp): exported from one run and
// imported into another that holds the same bodies, the second goes on bit for bit as the first, on the
// host backends, plain and with the neighbour scheme, across serial and openmp; what an import refuses;
// and the state's round trip through an HDF5 snapshot, with the damaged values a reader refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "hermite_checks.hpp"
#include "sim/error.hpp"
#include "sim/integrate/block_steps.hpp"
#include "sim/io/snapshot.hpp"
#include "sim/presets.hpp"
#include "temp_dir.hpp"

namespace nbody {
namespace {

using test::backend_with;
using test::same_bits;

Params plummer_hermite(double neighbours) {
    const PresetInfo* info = find_preset("plummer");
    Params p = info ? info->params : Params{};
    p.integrator = Integrator::hermite;
    p.neighbours = neighbours;
    return p;
}

// Runs `from` for 10 max steps, exports, then 10 more (the unbroken run); a backend `to` given the exported
// bodies and state runs the same 10 and must end with the same bits. One given the bodies alone must not
// (so the comparison can fail).
void expect_exact_continuation(const char* from, const char* to, Precision precision, double neighbours) {
    SCOPED_TRACE(std::string(from) + " -> " + to + " " + to_string(precision) + " K " +
                 std::to_string(int(neighbours)));
    const Params p = plummer_hermite(neighbours);
    const HostState s0 = make_preset("plummer", 300, 3);
    auto unbroken = backend_with(from, precision, s0);
    ASSERT_TRUE(unbroken->step(p, 10).finite);
    const std::optional<BlockState> state = unbroken->export_block_state(p);
    ASSERT_TRUE(state.has_value());
    EXPECT_EQ(state->size(), s0.size());
    EXPECT_EQ(state->has_neighbours(), neighbours > 0);
    EXPECT_EQ(block_state_problem(*state, s0.size()), "");
    const HostState saved = unbroken->get_state();
    // Exporting changes nothing of the run.
    ASSERT_TRUE(unbroken->step(p, 10).finite);

    auto restarted = backend_with(to, precision, saved);
    ASSERT_TRUE(restarted->import_block_state(p, *state));
    ASSERT_TRUE(restarted->step(p, 10).finite);
    EXPECT_TRUE(same_bits(restarted->get_state(), unbroken->get_state()));
    EXPECT_EQ(restarted->block_steps()->counters().starts, 0);  // it never started over

    auto bodies_alone = backend_with(to, precision, saved);
    ASSERT_TRUE(bodies_alone->step(p, 10).finite);
    EXPECT_FALSE(same_bits(bodies_alone->get_state(), unbroken->get_state()));
}

TEST(BlockState, AnExportedStateContinuesTheRunBitForBit) {
    for (Precision precision : {Precision::f32, Precision::f64}) {
        for (double k : {0.0, 12.0}) {
            expect_exact_continuation("serial", "serial", precision, k);
            expect_exact_continuation("openmp", "openmp", precision, k);
            // The state is the backend's only in where it lives: serial and openmp give the same bits.
            expect_exact_continuation("serial", "openmp", precision, k);
        }
    }
}

TEST(BlockState, ThereIsNoneBeforeTheFirstMaxStepOrAfterSynchronize) {
    const Params p = plummer_hermite(0);
    auto b = backend_with("serial", Precision::f64, make_preset("plummer", 64, 1));
    EXPECT_FALSE(b->export_block_state(p).has_value());
    ASSERT_TRUE(b->step(p, 2).finite);
    EXPECT_TRUE(b->export_block_state(p).has_value());
    b->synchronize();
    EXPECT_FALSE(b->export_block_state(p).has_value());
    // Bodies set from outside drop it too.
    ASSERT_TRUE(b->step(p, 1).finite);
    b->set_state(b->get_state());
    EXPECT_FALSE(b->export_block_state(p).has_value());
}

TEST(BlockState, AnImportRefusesAStateOfOtherBodiesOrPrecision) {
    const Params p = plummer_hermite(0);
    const HostState s0 = make_preset("plummer", 64, 1);
    auto b = backend_with("serial", Precision::f64, s0);
    ASSERT_TRUE(b->step(p, 2).finite);
    const BlockState good = *b->export_block_state(p);

    auto other_precision = backend_with("serial", Precision::f32, s0);
    EXPECT_FALSE(other_precision->import_block_state(p, good));
    HostState fewer = s0;
    fewer.resize(32);
    auto other_count = backend_with("serial", Precision::f64, fewer);
    EXPECT_FALSE(other_count->import_block_state(p, good));
    BlockState bad_level = good;
    bad_level.level[5] = 41;
    auto target = backend_with("serial", Precision::f64, s0);
    EXPECT_FALSE(target->import_block_state(p, bad_level));
    // A refused import leaves no state: the next max step starts from the bodies.
    ASSERT_TRUE(target->step(p, 1).finite);
    EXPECT_EQ(target->block_steps()->counters().starts, 1);
}

TEST(BlockState, ProblemsAreNamed) {
    const Params p = plummer_hermite(12);
    auto b = backend_with("serial", Precision::f64, make_preset("plummer", 100, 2));
    ASSERT_TRUE(b->step(p, 2).finite);
    const BlockState good = *b->export_block_state(p);
    ASSERT_EQ(block_state_problem(good, 100), "");
    EXPECT_NE(block_state_problem(good, 99).find("Level has 100 entries, expected 99"), std::string::npos);
    BlockState s = good;
    s.jerk[7].y = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(block_state_problem(s, 100), "Jerk[7] is not finite in double");
    // A float run's values must be finite as floats.
    s = good;
    s.precision = Precision::f32;
    s.acc[2].x = 1e300;
    EXPECT_EQ(block_state_problem(s, 100), "Acceleration[2] is not finite in float");
    s = good;
    s.level[3] = -1;
    EXPECT_EQ(block_state_problem(s, 100), "Level[3] = -1 is not a level (0 to 40)");
    s = good;
    s.radius[4] = 0;
    EXPECT_EQ(block_state_problem(s, 100), "Radius[4] is not a finite number > 0");
    s = good;
    ASSERT_GT(s.listed[9], 0u);
    s.lists[9 * 24] = 9;  // itself
    EXPECT_EQ(block_state_problem(s, 100), "Lists[9][0] = 9 is not another body");
    s = good;
    ASSERT_GT(s.listed[11], 1u);
    s.lists[11 * 24 + 1] = s.lists[11 * 24];  // a body listed twice would count twice
    EXPECT_EQ(block_state_problem(s, 100), "Lists[11] is not in ascending order at entry 1");
    s = good;
    s.listed[2] = 25;
    EXPECT_EQ(block_state_problem(s, 100), "Listed[2] = 25 is more than a list holds (24)");
    s = good;
    s.regular_level[1] = s.level[1] + 1;
    EXPECT_EQ(block_state_problem(s, 100), "Level[1] is coarser than RegularLevel[1]");
}

class BlockStateFile : public test::TempDirTest {};

// What a snapshot of the run at that point holds.
Snapshot snapshot_of(Backend& b, const Params& p, Precision precision) {
    Snapshot snap;
    snap.state = b.get_state();
    snap.info.has_params = true;
    snap.info.params = p;
    snap.info.precision = precision;
    snap.block = b.export_block_state(p);
    return snap;
}

bool same_state(const BlockState& a, const BlockState& b) {
    const auto same = [](const std::vector<Vec4<double>>& x, const std::vector<Vec4<double>>& y) {
        if (x.size() != y.size()) return false;
        for (std::size_t i = 0; i < x.size(); ++i) {
            if (x[i].x != y[i].x || x[i].y != y[i].y || x[i].z != y[i].z) return false;
        }
        return true;
    };
    return a.precision == b.precision && same_block_model(a.model, b.model) && a.level == b.level &&
           same(a.acc, b.acc) && same(a.jerk, b.jerk) && same(a.irregular_acc, b.irregular_acc) &&
           same(a.irregular_jerk, b.irregular_jerk) && same(a.regular_acc, b.regular_acc) &&
           same(a.regular_jerk, b.regular_jerk) && same(a.regular_snap, b.regular_snap) &&
           same(a.regular_crackle, b.regular_crackle) && a.regular_level == b.regular_level &&
           a.radius == b.radius && a.listed == b.listed && a.lists == b.lists;
}

TEST_F(BlockStateFile, AnHdf5SnapshotKeepsTheStateExactly) {
    if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
    for (Precision precision : {Precision::f32, Precision::f64}) {
        for (double k : {0.0, 12.0}) {
            SCOPED_TRACE(to_string(precision) + std::string(" K ") + std::to_string(int(k)));
            const Params p = plummer_hermite(k);
            auto b = backend_with("serial", precision, make_preset("plummer", 200, 4));
            ASSERT_TRUE(b->step(p, 3).finite);
            const Snapshot written = snapshot_of(*b, p, precision);
            ASSERT_TRUE(written.block.has_value());
            const std::string path = file("state.h5");
            write_snapshot(path, written);
            const Snapshot read = read_snapshot(path);
            ASSERT_TRUE(read.block.has_value());
            EXPECT_TRUE(same_state(*read.block, *written.block));
        }
    }
}

TEST_F(BlockStateFile, ADamagedStateIsRefusedNamingWhatIsWrong) {
    if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
    const Params p = plummer_hermite(12);
    auto b = backend_with("serial", Precision::f64, make_preset("plummer", 100, 4));
    ASSERT_TRUE(b->step(p, 2).finite);
    const Snapshot good = snapshot_of(*b, p, Precision::f64);
    const auto refused = [&](const Snapshot& s, const std::string& expected) {
        const std::string path = file("bad.h5");
        write_snapshot(path, s);
        try {
            read_snapshot(path);
            ADD_FAILURE() << "read a damaged state; expected: " << expected;
        } catch (const Error& e) {
            EXPECT_EQ(std::string(e.what()), path + ": " + expected);
        }
    };
    Snapshot s = good;
    s.block->level[3] = 41;
    refused(s, "/NBody/BlockSteps/Level[3] = 41 is not a whole number from 0 to 40");
    s = good;
    s.block->acc[8].z = std::numeric_limits<double>::infinity();
    refused(s, "/NBody/BlockSteps: Acceleration[8] is not finite in double");
    s = good;
    s.block->lists[5 * 24] = 100;
    refused(s, "/NBody/BlockSteps: Lists[5][0] = 100 is not another body");
    s = good;
    s.block->model.dt = -1;
    refused(s, "/NBody/BlockSteps/MaxStep = -1 is not a time step > 0");
    // A max step whose finest level underflows: no run could have made it.
    s = good;
    s.block->model.dt = 5e-324;
    refused(s,
            "/NBody/BlockSteps/MaxStep: dt = 5e-324 is too small a max step for the hermite "
            "integrator: its finest step dt / 2^40 = 0 underflows double precision (use a larger --dt)");
    // Lists without the scheme's parameter: the file contradicts itself.
    s = good;
    s.info.params.neighbours = 0;
    refused(s, "/NBody/BlockSteps has neighbour lists, but /NBody/Neighbours is 0");
}

}  // namespace
}  // namespace nbody
