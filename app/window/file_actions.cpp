#include "file_actions.hpp"

#include <utility>

#include "app/cli/snapshot_options.hpp"
#include "sim/io/snapshot.hpp"
#include "sim/validate.hpp"
#include "sim_session.hpp"

namespace nbody {

Scenario replay_scenario(const std::vector<std::string>& paths) {
    Snapshot first = read_snapshot(paths.front());
    Scenario sc;
    sc.state = std::move(first.state);
    sc.params = first.info.params;
    sc.backend = "serial";
    sc.precision = Precision::f64;
    validate_state(sc.state, sc.params, sc.precision);
    return sc;
}

void FileActions::start_replay(std::vector<std::string> paths, double t) {
    replay_ = std::make_unique<ReplayTimeline>(paths.size());
    paths_ = std::move(paths);
    shown_time_ = t;
}

OpenedFile FileActions::open(const std::string& path, const Params& current, Precision precision) {
    Snapshot snap = read_snapshot(path);
    validate_state(snap.state, snap.info.has_params ? snap.info.params : current, precision);
    OpenedFile f;
    f.notes = std::move(snap.notes);
    if (snap.info.has_params && !replay_) {
        f.params = snap.info.params;
        f.block = std::move(snap.block);
    }
    f.step = snap.info.step;
    shown_time_ = snap.state.t;
    f.state = std::move(snap.state);
    return f;
}

SavedSnapshot FileActions::save(const std::string& path, const SessionResult& captured,
                                const std::string& preset, std::uint64_t seed) const {
    Scenario sc;
    sc.params = captured.params;
    sc.precision = captured.precision;
    sc.preset = preset;
    sc.seed = seed;
    const Snapshot snap =
        make_snapshot(sc, *captured.state, captured.steps_total,
                      captured.block ? std::optional<BlockState>(*captured.block) : std::nullopt);
    SavedSnapshot saved;
    saved.notes = write_snapshot(path, snap);
    saved.step = snap.info.step;
    return saved;
}

}  // namespace nbody
