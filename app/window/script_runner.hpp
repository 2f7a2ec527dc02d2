#pragma once
// Carries out a parsed --test-script (app/window/test_script) in the running window, frame by frame,
// through the narrow ScriptWindow interface the window implements.
#include <cstddef>
#include <glm/glm.hpp>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/state.hpp"
#include "test_script.hpp"

namespace nbody {

struct PanelModel;
struct PanelActions;
struct PanelInfo;
class SimSession;
class ReplayTimeline;

// Synthetic input from --test-script for one frame, written into ImGui's IO over the real devices.
struct ScriptInput {
    bool active = false;
    float x = 0, y = 0;  // window coordinates
    bool down = false, shift = false;
    int key = -1;  // GLFW key code held this frame
};

// The window as a script drives it: the panel's model and actions (a script acts as the panel does), the
// simulation, and the few things the panel has no widget for.
class ScriptWindow {
  public:
    virtual ~ScriptWindow() = default;
    // The panel's model, edited as its widgets would.
    virtual PanelModel& panel_model() = 0;
    // The simulation, for exact steps and the bodies' positions.
    virtual SimSession& simulation() = 0;
    // Carries out what the panel's buttons would have raised.
    virtual void apply(const PanelActions& a) = 0;
    // Waits for every queued request and applies its outcome, so a check sees it.
    virtual void settle() = 0;
    // Where a world point is drawn, in window coordinates.
    virtual glm::vec2 window_position(const glm::vec3& world) const = 0;
    // Saves a snapshot, as Ctrl+S does.
    virtual void save_snapshot(const std::string& path) = 0;
    // Opens a file as if it were dropped onto the window.
    virtual void drop_file(const std::string& path) = 0;
    // Shows snapshot k of the replay; false when not in replay mode.
    virtual bool seek_replay(std::size_t k) = 0;
    // Resizes the window to w x h (window units), as dragging its border would; false if its framebuffer
    // did not take that size.
    virtual bool resize_window(int w, int h) = 0;
    // Whether the window is closing (Escape, the close button, the panel's Quit).
    virtual bool closing() const = 0;
    // What the panel shows, with its clock and energies brought up to date with the session now.
    virtual const PanelInfo& panel_info_now() = 0;
    // Replay mode: the timeline and the snapshot loaded last; null / 0 outside replay mode.
    virtual ReplayTimeline* replay_timeline() = 0;
    virtual std::size_t replay_shown() const = 0;
};

// Carries out a parsed --test-script frame by frame, and counts the actions and what failed.
class ScriptRunner {
  public:
    ScriptRunner() = default;
    explicit ScriptRunner(std::vector<ScriptStep> steps) : steps_(std::move(steps)) {}
    bool empty() const { return steps_.empty(); }
    // Carries out this frame's actions on the window; call once a frame, before the panel.
    void run(int frame, ScriptWindow& w);
    // The action being carried out, while run() is in one: requests it queues carry it, so they count.
    const ScriptStep* current() const { return step_; }
    // Counts a failure of the current action (outside one: of the frame run last) and says why.
    void fail(const std::string& why);
    // Counts a failure of a request the action `action` queued at `frame` and says why.
    void request_failed(int frame, const std::string& action, const std::string& why);
    // The synthetic input for this frame, if there is any.
    const ScriptInput* input(int frame) const;
    // The screenshot an action asked for this frame, or empty; asking forgets it.
    std::string take_screenshot();
    int actions() const { return actions_; }
    int failures() const { return failures_; }

  private:
    std::vector<ScriptStep> steps_;
    std::map<int, ScriptInput> input_;  // frame -> synthetic input
    const ScriptStep* step_ = nullptr;  // the action being carried out, if any
    int frame_ = 0;
    int actions_ = 0, failures_ = 0;
    std::vector<Vec4<float>> marked_;  // positions saved by `mark`
    double pace_since_ = -1;           // replay_speed: when the pace was set (wall seconds) ...
    std::size_t pace_from_ = 0;        // ... and the snapshot shown then
    std::string screenshot_;
};

}  // namespace nbody
