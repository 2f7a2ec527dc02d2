#include "cmd_render.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <vector>

#include "app/window/recorder.hpp"
#include "backends/registry.hpp"
#include "process_pipe.hpp"
#include "progress.hpp"
#include "render/body_feed.hpp"
#include "render/camera.hpp"
#include "render/camera_path.hpp"
#include "render/gl_util.hpp"
#include "render/image.hpp"
#include "render/offscreen_context.hpp"
#include "render/offscreen_renderer.hpp"
#include "render/overlay_scale.hpp"
#include "render/particle_renderer.hpp"
#include "render/pick_renderer.hpp"
#include "render/potential_view.hpp"
#include "render/scene_renderer.hpp"
#include "replay.hpp"
#include "sim/error.hpp"
#include "sim/integrate/integrators.hpp"
#include "sim/io/snapshot.hpp"
#include "sim/platform/atomic_file.hpp"
#include "sim/platform/file_identity.hpp"
#include "sim/platform/memory.hpp"
#include "sim/presets.hpp"
#include "sim/util.hpp"
#include "sim/validate.hpp"
#include "video_encoder.hpp"

namespace nbody {

CLI::App* add_render_command(CLI::App& root, RenderOptions& o) {
    CLI::App* cmd = root.add_subcommand(
        "render", "render PNG images (or a video) offscreen through EGL: no window or X server needed");
    add_scenario_flags(*cmd, o.scenario);
    const std::int64_t most = std::numeric_limits<std::int64_t>::max();
    const int most_int = std::numeric_limits<int>::max();
    add_integer_option(
        *cmd, "--steps", o.steps, 0, most,
        "simulation steps in total (max steps of --dt with --integrator hermite; default: 100, or the "
        "preset's demo length: collision 1200)");
    add_integer_option(*cmd, "--width", o.width, 1, 16384, "image width in pixels");
    add_integer_option(*cmd, "--height", o.height, 1, 16384, "image height in pixels");
    add_path_option(*cmd, "--out", o.out,
                    "PNG file of the last frame, or a directory of numbered frames with --every");
    add_integer_option(*cmd, "--every", o.every, 0, most,
                       "write a frame every K steps (frame_00000.png, ...; step 0 included)");
    add_path_option(*cmd, "--video", o.video,
                    "encode the frames (every --every steps, default 1) to this file via ffmpeg");
    add_integer_option(*cmd, "--fps", o.fps, 1, 1000, "video frame rate");
    // Appearance: finite, and within what the renderer can draw (a sprite of 10^9 px would never finish).
    add_real_option(
        *cmd, "--size", o.size_px, {0, 256, true},
        "sprite diameter in pixels (at 1080 lines) of a typical body, in (0, 256] (default: 4, smaller "
        "above N=65536)");
    add_real_option(*cmd, "--brightness", o.brightness, {0, 1e6, true}, "light per sprite, in (0, 1e6]");
    add_real_option(*cmd, "--exposure", o.exposure, {0, 1e6, true}, "tone-mapping exposure, in (0, 1e6]");
    add_name_option(*cmd, "--look", o.look,
                    std::string("the picture's style: ") + look_names() +
                        " (classic: NVIDIA's CUDA nbody sample's, every body the same orange sprite, light "
                        "added and clamped; overrides --color, --bloom, --exposure and the tone mapping)");
    add_name_option(
        *cmd, "--color", o.color,
        std::string("what the colour shows: ") + color_mode_names() +
            " (group: each galaxy or body set its own hue; density: the light piled up per pixel)");
    add_name_option(*cmd, "--colormap", o.colormap, std::string("the colour ramp: ") + color_map_names());
    add_real_option(*cmd, "--bloom", o.bloom, {0, 100}, "glow around bright regions, 0 = off (default 0.35)");
    cmd->add_flag("--fixed-exposure", o.fixed_exposure,
                  "a white point from N alone instead of adapting it to the image (the look before the "
                  "automatic exposure)");
    add_name_option(
        *cmd, "--splat", o.splat,
        "how bodies are drawn: sprites (raster point sprites), compute (compute-shader splat, faster "
        "for many small bodies on compute GPUs) or auto (compute from N=262144 up, for sprites up to 4 "
        "px)");
    add_path_option(
        *cmd, "--replay", o.replay,
        "render a snapshot series (a directory written by `nbody run --snapshot-every`): one frame per "
        "snapshot into --out DIR or --video, no simulation")
        ->type_name("DIR");
    cmd->add_flag("--no-tone-map", o.no_tone_map, "clamp instead of tone mapping (dense cores saturate)");
    add_real_option(*cmd, "--yaw", o.yaw_deg, {-1e6, 1e6}, "camera yaw in degrees");
    add_real_option(*cmd, "--pitch", o.pitch_deg, {}, "camera pitch in degrees, in (-89.5, 89.5)");
    add_real_option(*cmd, "--zoom", o.zoom, {0, 1e6, true}, "zoom factor over the fitted view, in (0, 1e6]");
    cmd->add_flag("--auto-frame", o.auto_frame,
                  "with --every or --video: follow the bulk of the bodies as they spread (the view is "
                  "refitted every frame, eased; far escapers are ignored). A single image is always "
                  "framed on the bodies it shows");
    add_path_option(*cmd, "--camera-path", o.camera_path,
                    "fly the camera along this path (JSON keyframes, saved from the window's Camera path "
                    "section): frame k shows the path's view at k / --fps seconds, held after its last key")
        ->type_name("FILE.json");
    cmd->add_flag("--host-copy", o.host_copy, "copy bodies through host memory even with cuda (no interop)");
    add_integer_option(*cmd, "--bench-frames", o.bench_frames, 0, most_int,
                       "after rendering, time this many full frames (step+draw) and draw-only frames");
    add_path_option(*cmd, "--bench-record", o.bench_record,
                    "with --bench-frames: record the timed full frames into this video as the window's "
                    "Record does (pixel-buffer readback, encoder thread), to measure what recording costs");
    cmd->add_flag("--bench-paused", o.bench_paused, "with --bench-frames: time drawing only, no steps");
    cmd->add_flag("--quiet", o.quiet, "no progress line on stderr");
    add_integer_option(*cmd, "--trails", o.trails, 0, 4096,
                       "draw trails of the last K positions (recorded every steps/K steps), K in 0..4096");
    cmd->add_flag("--vectors", o.vectors, "draw velocity arrows");
    cmd->add_flag("--acc-vectors", o.acc_vectors,
                  "draw acceleration arrows (the force solver's accelerations; cuda writes them into the "
                  "vertex buffer)");
    add_integer_option(*cmd, "--potential", o.potential, 0, 1024,
                       "blend the potential-field view over the image, on a grid RES points wide (16..1024), "
                       "evaluated by the force solver where the bodies live (with --bench-frames: every "
                       "frame)");
    cmd->add_flag(
        "--pick", o.pick,
        "with --bench-frames: in every frame, pick the body at the image centre as a click does (an "
        "index pass, one body read back) and evaluate its potential energy");
    cmd->footer(
        "Examples:\n"
        "  nbody render --preset disk --n 65536 --steps 200 --out disk.png\n"
        "  nbody render --preset collision --steps 2000 --every 20 --out frames/\n"
        "  nbody render --preset plummer --steps 3000 --every 10 --video plummer.mp4\n"
        "  nbody render --preset collision --n 1048576 --force tree --steps 1800 --every 6 --camera-path "
        "flight.json --video collision.mp4");
    return cmd;
}

namespace {

ColorMode parse_color(const std::string& s) {
    if (auto m = parse_color_mode(s)) {
        if (*m == ColorMode::potential || *m == ColorMode::local_density)
            throw Error(
                "--color " + s +
                " is the window's (it computes it for the bodies as it runs); render has: speed, mass, "
                "white, group, accel, density, classic");
        return *m;
    }
    throw Error("unknown --color '" + s + "' (valid: " + color_mode_names() + ")");
}

ColorMap parse_colormap(const std::string& s) {
    if (auto m = parse_color_map(s)) return *m;
    throw Error("unknown --colormap '" + s + "' (valid: " + color_map_names() + ")");
}

SplatMode parse_splat(const std::string& s) {
    if (auto m = parse_splat_mode(s)) return *m;
    throw Error("unknown --splat '" + s + "' (valid: auto, sprites, compute)");
}

// The appearance flags as the renderer's look (color and splat names checked here, with their flags).
FrameLook look_of(const RenderOptions& o) {
    FrameLook l;
    if (auto look = parse_look(o.look)) {
        l.look = *look;
    } else {
        throw Error("unknown --look '" + o.look + "' (valid: " + look_names() + ")");
    }
    l.size_px = o.size_px;
    l.brightness = o.brightness;
    l.exposure = o.exposure;
    l.color = parse_color(o.color);
    l.colormap = parse_colormap(o.colormap);
    l.bloom = o.bloom;
    l.fixed_exposure = o.fixed_exposure;
    l.splat = parse_splat(o.splat);
    l.tone_map = !o.no_tone_map;
    l.yaw_deg = o.yaw_deg, l.pitch_deg = o.pitch_deg, l.zoom = o.zoom;
    l.host_copy = o.host_copy;
    l.trails = o.trails;
    l.vectors = o.vectors;
    l.acc_vectors = o.acc_vectors;
    l.potential = o.potential;
    return l;
}

void check_options(const RenderOptions& o) {
    check_thread_count(0);  // OMP_NUM_THREADS within bounds
    if (o.steps && *o.steps < 0) throw Error("--steps must be >= 0 (got " + std::to_string(*o.steps) + ")");
    if (o.every < 0) throw Error("--every must be >= 0 (got " + std::to_string(o.every) + ")");
    validate_look(look_of(o), o.width, o.height);
    if (o.fps < 1) throw Error("--fps must be >= 1");
    if (o.bench_frames < 0) throw Error("--bench-frames must be >= 0");
    if (!o.camera_path.empty() && o.auto_frame) {
        throw Error("--camera-path and --auto-frame both move the camera: give one");
    }
    if (!o.bench_record.empty()) {
        require_ffmpeg("--bench-record");
        check_output_path(o.bench_record, "--bench-record");
    }
    if (!o.video.empty() && !on_path("ffmpeg")) {
        throw Error(
            "--video needs ffmpeg on PATH (not found): install ffmpeg, or write frames with --out DIR "
            "--every K");
    }
    if (!o.replay.empty() && o.video.empty() && std::filesystem::path(o.out).extension() == ".png") {
        throw Error(
            "--replay writes a frame per snapshot: give --out a directory (or --video FILE.mp4), not '" +
            o.out + "'");
    }
    if (o.video.empty() && o.every > 0 && std::filesystem::path(o.out).extension() == ".png") {
        throw Error("--every writes numbered frames into a directory: give --out a directory, not '" + o.out +
                    "'");
    }
    // One image is a PNG, whatever its name: say so rather than write PNG bytes under .jpg.
    if (o.video.empty() && o.every == 0 && o.replay.empty() &&
        std::filesystem::path(o.out).extension() != ".png") {
        throw Error("--out " + quote_excerpt(o.out, 1024) +
                    ": render writes PNG images: give the file a .png name (or a directory with --every)");
    }
    // Before simulating: a long run must not end in "cannot write".
    if (!o.video.empty()) {
        check_output_path(o.video, "--video");
    } else if (o.every == 0 && o.replay.empty()) {
        check_output_path(o.out, "--out");
    }
    const std::vector<NamedInput> inputs = {{"--input", o.scenario.input}};
    check_output_is_no_input("--video", o.video, inputs);
    if (o.video.empty() && o.every == 0 && o.replay.empty()) check_output_is_no_input("--out", o.out, inputs);
}

// Creates the frame directory (and its parents) and checks it is writable; throws one line.
// Frames of an earlier render are refused rather than mixed in: a shorter run would overwrite the first
// ones and leave the later ones looking like its own.
void prepare_frame_dir(const std::string& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw Error("cannot create directory '" + dir + "': " + ec.message());
    if (::access(dir.c_str(), W_OK) != 0) throw Error("--out directory '" + dir + "' is not writable");
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.size() == 15 && name.rfind("frame_", 0) == 0 && name.substr(11) == ".png") {
            throw Error("--out directory '" + dir + "' already holds frames of an earlier render (" + name +
                        "): remove them or choose another directory");
        }
    }
}

// k steps (max steps for an adaptive integrator); an adaptive run's blocks and evaluations are added to
// `work`.
void step_checked(Backend& b, const Params& p, std::int64_t k, std::int64_t done, StepReport& work) {
    if (k <= 0) return;
    StepReport r = b.step(p, k);
    if (r.stalled) {
        throw Error("block steps stalled in max step " + std::to_string(done + r.bad_step) + ": " +
                    stall_reason(r.bad_body, p, b.precision()));
    }
    if (!r.finite) {
        throw Error("NaN/Inf in body " + std::to_string(r.bad_body) + " at " +
                    (integrator_info(p.integrator).adaptive ? "max step " : "step ") +
                    std::to_string(done + r.bad_step) + " (try " + energy_advice(p, b.precision()) + ")");
    }
    work.blocks += r.blocks;
    work.body_updates += r.body_updates;
    work.neighbour_updates += r.neighbour_updates;
}

void bench(OffscreenRenderer& r, Backend& b, const Params& p, int frames, bool paused, bool pick,
           const std::string& record) {
    Recorder recorder;
    if (!record.empty()) recorder.start(record, r.ctx.width, r.ctx.height);
    std::vector<double> full, draw_only;
    std::int64_t picked = -1;
    std::size_t d2h = r.feed.last.device_to_host_bytes, h2d = r.feed.last.host_to_device_bytes;
    bool interop = r.feed.last.interop;
    for (int i = 0; !paused && i < frames + 3; ++i) {  // 3 warm-up frames
        double t0 = now_s();
        b.step(p, 1);
        FeedStats fs = r.update(b);
        r.draw();
        if (pick) {
            // As the window does on a click: an index pass, then one body read back.
            std::int64_t body = r.scene.picker.pick(r.scene.particles, r.camera, r.ps, r.ctx.width / 2,
                                                    r.ctx.height / 2, r.ctx.width, r.ctx.height);
            if (body >= 0) {
                // The panel's numbers: the body from the vertex buffers, its potential energy from the
                // force solver at its exact position (the window does this a few times a second).
                picked = body;
                (void)read_body(r.scene.particles, std::size_t(body));
                const BodyValues exact = b.body(std::size_t(body));
                (void)b.field_at(p, {exact.pos_mass}, true);
            }
        }
        if (recorder.active() && !recorder.capture(r.ctx.fbo, r.ctx.width, r.ctx.height))
            throw Error(recorder.last_message());
        glFinish();
        double t1 = now_s();
        if (i >= 3) full.push_back(1e3 * (t1 - t0));
        d2h = fs.device_to_host_bytes;
        h2d = fs.host_to_device_bytes;
        interop = fs.interop;
    }
    for (int i = 0; i < frames + 3; ++i) {
        double t0 = now_s();
        r.draw();
        glFinish();
        double t1 = now_s();
        if (i >= 3) draw_only.push_back(1e3 * (t1 - t0));
    }
    std::string recorded;
    if (recorder.active()) {
        recorded = recorder.stop();
        if (recorded.rfind("recording failed", 0) == 0) throw Error(recorded);
    }
    if (full.empty()) full.push_back(0);
    std::printf(
        "bench: N=%zu backend=%s %dx%d frames=%d  full frame (step+feed+draw) median %.3f ms (min %.3f)  "
        "draw only median %.3f ms (min %.3f)  interop=%s  device->host %zu B/frame  host->device %zu "
        "B/frame\n",
        b.size(), b.name().c_str(), r.ctx.width, r.ctx.height, frames, median(full),
        *std::min_element(full.begin(), full.end()), median(draw_only),
        *std::min_element(draw_only.begin(), draw_only.end()), interop ? "yes" : "no", d2h, h2d);
    std::printf("bench: drawn with %s, sprite size %.2f px\n",
                r.compute_path() ? "compute splat" : "point sprites", double(r.ps.size_px));
    std::printf(
        "bench: overlays: trails %d, vectors %s, acc-vectors %s, potential %d, pick %s (body %lld at the "
        "centre)\n",
        r.os.trails ? r.os.trail_length : 0, r.os.vectors ? "on" : "off", r.os.accelerations ? "on" : "off",
        r.potential_res, pick ? "every frame" : "off", static_cast<long long>(picked));
    if (!r.feed.interop_note.empty()) std::printf("bench: %s\n", r.feed.interop_note.c_str());
    if (!recorded.empty()) std::printf("bench: full frames %s\n", recorded.c_str());
}

}  // namespace

int run_render_command(const RenderOptions& o) {
    check_options(o);
    std::vector<std::string> replay_files;
    Scenario sc;
    if (!o.replay.empty()) {
        replay_files = list_snapshot_series(o.replay);
        sc.state = read_snapshot(replay_files.front()).state;
        sc.backend = "serial";  // only holds the bodies: nothing is simulated
        sc.precision = Precision::f64;
    } else {
        sc = resolve_scenario(o.scenario, kDefaultRenderN);
    }

    std::int64_t steps = 100;
    if (o.steps) {
        steps = *o.steps;
    } else if (const PresetInfo* preset = find_preset(sc.preset); preset && preset->demo_steps > 0) {
        steps = preset->demo_steps;
    }
    if (o.replay.empty() && steps > 0) validate_clock_step(sc.state.t, sc.params.dt);

    OffscreenRenderer r;
    r.start(o.width, o.height, look_of(o), sc.state, sc.params);
    r.scene.particles.stats.groups.starts = preset_group_starts(sc.preset, sc.state.size());
    // Read before simulating: a bad path file is an error now, not after the run.
    std::optional<CameraPath> path;
    if (!o.camera_path.empty()) path = load_camera_path(o.camera_path);

    auto backend = create_backend(sc.backend, sc.precision);
    backend->set_state(sc.state);

    std::int64_t every = o.every;
    if ((!o.video.empty() || !replay_files.empty()) && every == 0) every = 1;
    // The video is encoded under a temporary name and renamed when complete, like every other output:
    // a blow-up, a failed ffmpeg or Ctrl-C leaves no half-written file.
    std::unique_ptr<AtomicFile> video_file;
    if (!o.video.empty()) video_file = std::make_unique<AtomicFile>(o.video, AtomicFile::Mode::by_name);
    std::unique_ptr<ProcessPipe> pipe;
    if (!o.video.empty()) {
        // The window recorder's arguments (an argv array, no shell: the name reaches ffmpeg as given).
        pipe = std::make_unique<ProcessPipe>(
            h264_encoder_argv(o.width, o.height, o.fps, video_file->temp_path()), o.video);
    } else if (every > 0) {
        prepare_frame_dir(o.out);
    }

    int written = 0;
    auto emit = [&](bool last) {
        if (every == 0 && !last) return;
        // One image shows the bodies where they are at its end (tails and escapers spread far from
        // where they started); a series eases after them when asked, and otherwise holds its camera.
        if (path) {
            r.camera = path->sample(double(written) / double(o.fps), r.camera);
            r.os.set_scale(overlay_scale(r.camera, backend->size(), r.scene.particles.stats));
        } else if (every == 0 && replay_files.empty()) {
            r.frame_bodies(*backend, 1.0f);
        } else if (o.auto_frame) {
            r.frame_bodies(*backend, written == 0 ? 1.0f : 0.15f);
        }
        Image img = r.frame(*backend);
        if (pipe) {
            pipe->write(img.rgba.data(), img.rgba.size());
        } else if (every > 0) {
            char name[32];
            std::snprintf(name, sizeof name, "frame_%05d.png", written);
            write_png((std::filesystem::path(o.out) / name).string(), img);
        } else {
            write_png(o.out, img);
        }
        ++written;
    };

    // Frames already written stay when a later step blows up or a later snapshot is bad (each is
    // complete, and they show the run up to the failure); the error says so. A video is removed instead.
    auto frames_kept = [&](const Error& e) {
        if (pipe || every == 0 || written == 0) return Error(e.what());
        char last[32];
        std::snprintf(last, sizeof last, "frame_%05d.png", written - 1);
        return Error(std::string(e.what()) + "; the " + std::to_string(written) +
                     " frames before it stay in '" + o.out + "' (frame_00000.png to " + last + ")");
    };
    std::int64_t done = 0;
    if (every > 0) emit(false);
    for (std::size_t i = 1; i < replay_files.size(); ++i) {
        try {
            Snapshot snap = read_snapshot(replay_files[i]);
            validate_state(snap.state, sc.params, sc.precision);
            backend->set_state(snap.state);
        } catch (const Error& e) {
            throw frames_kept(e);
        }
        emit(false);
    }
    const double n = static_cast<double>(backend->size());
    // An adaptive integrator's max steps cost what its blocks do: the line counts max steps and shows the
    // blocks and evaluations instead of an N^2 rate (as `nbody run`'s).
    const bool adaptive = integrator_info(sc.params.integrator).adaptive;
    Progress progress("render", std::max<std::int64_t>(steps, 1), adaptive ? 0.0 : n * n,
                      progress_settings_from_environment(o.quiet), std::cerr);
    if (adaptive) progress.set_units("max step", "max steps");
    if (replay_files.empty() && steps > 0 && block_steps_may_stall(sc.params, sc.precision))
        std::cerr << "nbody: warning: " << kStallWarning << '\n';
    if (replay_files.empty() && steps > 0 && eta_below_float_floor(sc.params, sc.precision))
        std::cerr << "nbody: warning: " << float_eta_warning(sc.params) << '\n';
    StepReport work;
    std::int64_t chunk = 0;
    double chunk_seconds = 0;
    // Trails need positions along the way: with one image, record them every steps/K steps.
    const std::int64_t trail_every =
        o.trails > 0 && every == 0 ? std::max<std::int64_t>(1, steps / o.trails) : 0;
    while (replay_files.empty() && done < steps) {
        // Up to the next frame, in pieces of about a quarter second so the progress line moves.
        std::int64_t to_frame = every > 0 ? std::min(every - done % every, steps - done) : steps - done;
        if (trail_every > 0) to_frame = std::min(to_frame, trail_every - done % trail_every);
        chunk = next_chunk(chunk, chunk_seconds, to_frame);
        const double start = now_s();
        try {
            step_checked(*backend, sc.params, chunk, done, work);
        } catch (const Error& e) {
            throw frames_kept(e);
        }
        chunk_seconds = now_s() - start;
        done += chunk;
        if (adaptive) {
            progress.set_detail(block_work_detail(backend->time(), sc.params.dt, work.blocks,
                                                  work.body_updates, work.neighbour_updates,
                                                  sc.params.neighbours > 0));
        }
        progress.update(done);
        if (every > 0 && (done % every == 0 || done == steps)) emit(false);
        if (trail_every > 0 && done % trail_every == 0 && done < steps) {
            r.feed.feed(*backend, r.scene.particles, r.wants_accelerations() ? &r.params : nullptr);
            r.scene.overlays.record(r.scene.particles, r.os);
        }
    }
    if (every == 0 && replay_files.empty()) emit(true);
    if (pipe) {
        pipe->finish();
        video_file->commit();
    }
    progress.finish();
    if (o.bench_frames > 0)
        bench(r, *backend, sc.params, o.bench_frames, o.bench_paused, o.pick, o.bench_record);

    std::string where = !o.video.empty() ? o.video : o.out;
    const long long stepped = static_cast<long long>(replay_files.empty() ? steps : 0);
    const std::string step_text =
        adaptive ? std::to_string(stepped) + " max steps (" + std::to_string(work.blocks) + " blocks)"
                 : std::to_string(stepped) + " steps";
    std::printf("nbody render: %zu bodies, %s (%s), %s, %d frame%s -> %s  [%s%s, %s]\n", backend->size(),
                backend->name().c_str(), to_string(backend->precision()), step_text.c_str(), written,
                written == 1 ? "" : "s", where.c_str(), r.ctx.device.c_str(),
                r.feed.last.interop ? ", CUDA-GL interop" : "",
                r.compute_path() ? "compute splat" : "sprites");
    return 0;
}

}  // namespace nbody
