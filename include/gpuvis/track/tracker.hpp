#pragma once
// Stage 4 of the tracker: frame-to-frame association of fiducials, fingers and blobs into TUIO
// objects, cursors and blobs with session IDs and motion (spec §6-§8, with the sound choices of
// docs/tracking.md where reacTIVision's quirks hurt users).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpuvis/decode/detections.hpp"
#include "gpuvis/track/one_euro.hpp"

namespace gpuvis::track {

struct TrackerParams {
  int lost_frames_object = 2;  // an object not seen for this many frames is removed
  int lost_frames_cursor = 2;  // reacTIVision drops a cursor after one missed frame (Q25)
  int lost_frames_blob = 2;
  // 1€ smoothing (reacTIVision's <filter fiducial finger blob>), with reacTIVision's parameters:
  // fiducials and fingers (mincutoff 1, beta 0.25, dcutoff 10), blobs (0.5, 0.15, 10; angle dcutoff 1).
  bool smooth_objects = false, smooth_cursors = false, smooth_blobs = false;
};

// Per-item smoothing state: position and (unwrapped) angle.
struct Smoothing {
  OneEuroFilter x, y, angle;
  float unwrapped = 0;  // the angle without wrap-around jumps, as filtered
};

enum class State { added, updated, lost };

// Common motion of TUIO items; positions normalised to [0, 1] (pixel / width or height).
struct Motion {
  float x = 0, y = 0;
  float vx = 0, vy = 0;  // normalised units per second
  float accel = 0;       // signed motion acceleration
};

// What a TUIO blob belongs to: nothing (a plain blob), or an object or cursor whose region it
// describes (reacTIVision's obj_blob / cur_blob, spec §7.6); such a blob has its owner's session ID.
enum class BlobOwner : std::uint8_t { none, object, cursor };

// How an object was last updated (spec §6.1): its symbol decoded, a damaged candidate or a symbol
// of another ID at its place (§6.4), only its root region (§6.5), or its print found by its
// appearance where it was expected (Fiducial::followed, the detector's second look).
enum class Tracking : std::uint8_t { found, fuzzy, root, followed };

struct Object {
  std::int32_t session_id;
  int symbol_id;
  Motion m;
  float angle = 0;           // radians [0, 2π)
  float rotation_speed = 0;  // turns per second
  float rotation_accel = 0;
  int root_size = 0;         // pixels
  std::uint8_t root_colour = 255;
  float root_dx = 0, root_dy = 0;  // symbol centre minus root-region centroid, pixels (§6.5)
  Tracking tracking = Tracking::found;
  // ID-conflict counter (§6.4): a symbol of another ID seen at this object's place is taken as a
  // misread of this one until it has been seen `conflict_threshold` + 1 times (the threshold grows
  // with every frame the object is found, up to 9, and shrinks with every conflict).
  int conflict_threshold = 2, conflict_count = 0, conflict_id = -1;
  int missed = 0;            // consecutive frames without a detection
  bool updated = false;      // changed in the current frame
  decode::Blob shape;        // its root region's blob, when object blobs are on (§7.6)
  Smoothing smooth;
};

struct Cursor {
  std::int32_t session_id;
  int cursor_id;  // small recycled number
  Motion m;
  float size = 0;  // pixels
  int missed = 0;
  bool updated = false;
  bool visible = false;  // shown from its second frame (a one-frame debounce, as reacTIVision)
  decode::Blob shape;    // the finger's blob, when finger blobs are on (§7.6)
  Smoothing smooth;
};

struct TrackedBlob {
  std::int32_t session_id;
  int blob_id;
  Motion m;
  float angle = 0, width = 0, height = 0, area = 0;  // normalised like TUIO 2Dblb
  float rotation_speed = 0, rotation_accel = 0;
  BlobOwner owner = BlobOwner::none;
  int missed = 0;
  bool updated = false;
  bool visible = false;
  Smoothing smooth;
};

// Everything a TUIO frame needs.
struct Frame {
  std::int32_t fseq = 0;
  double time = 0;  // seconds
  int width = 0, height = 0;  // the tracked frames' size in pixels (TUIO 2.0's sensor dimension)
  std::vector<Object> objects;
  std::vector<Cursor> cursors;
  std::vector<TrackedBlob> blobs;
  bool objects_changed = false, cursors_changed = false, blobs_changed = false;
};

class Tracker {
 public:
  explicit Tracker(TrackerParams params = {}) : params_(params) {}
  // Advances by one frame taken at `time` (seconds, increasing).
  const Frame& update(const decode::Detections& detections, double time);
  const Frame& frame() const { return frame_; }
  // Removes everything (shutdown): the next frame reports empty alive lists.
  const Frame& clear(double time);
  // Where each object with a symbol ID should be in the next frame, moving on at its velocity
  // for one more frame interval and turning on at its rotation speed, with that motion and its
  // session ID as the key: for the detector's second look (pipeline::Detector::expect), which
  // then looks for a smeared symbol where the tracker expects it.
  void expected_symbols(std::vector<decode::ExpectedSymbol>& out) const;

 private:
  struct Step;  // the frame being tracked (tracker.cpp)
  std::int32_t next_session() { return next_session_++; }
  int next_small_id(std::vector<int>& used);

  // Objects (§6): the same symbol, a nearby candidate (§6.4), the root region (§6.5), then lost
  // objects go and unmatched symbols become objects.
  void track_objects(const Step& s);
  void match_same_symbols(const Step& s, std::vector<bool>& used);
  void match_nearby_candidates(const Step& s, std::vector<bool>& used, std::vector<bool>& replaced);
  void follow_root_regions(const Step& s, const std::vector<bool>& replaced);
  void drop_lost_objects(const std::vector<bool>& replaced);
  void add_new_objects(const Step& s, const std::vector<bool>& used);
  void set_object_position(Object& o, const Step& s, float x, float y, float angle, bool with_angle);
  void take_symbol(Object& o, const Step& s, std::size_t j, Tracking how);
  // Cursors (§7): fingers paired with cursors, lost ones dropped, new ones added.
  void track_cursors(const Step& s);
  // Blobs (§7.5, §7.6): owned blobs follow their owners, plain blobs are paired, new owners' blobs
  // are added.
  void track_blobs(const Step& s);
  void follow_owners(const Step& s);
  void match_plain_blobs(const Step& s);
  void add_owned_blobs(const Step& s);
  void fill_blob(TrackedBlob& t, const Step& s, const decode::Blob& b);
  void update_blob(TrackedBlob& t, const Step& s, const decode::Blob& b);
  void add_blob(const Step& s, const decode::Blob& b, std::int32_t session, BlobOwner owner, bool visible);

  TrackerParams params_;
  Frame frame_;
  std::int32_t next_session_ = 0;
  std::vector<int> cursor_ids_, blob_ids_;
  bool first_ = true;
  float last_dt_ = 0;  // the last frame interval, seconds
};

}  // namespace gpuvis::track
