// Frame-to-frame association. Per fiducial ID, existing objects and this frame's detections are
// paired greedily by distance from the object's predicted position (closest pairs first), so two
// symbols with the same ID keep their session IDs (reacTIVision's claim check, Q20, loses them).
// Fingers and blobs are paired the same way. Items survive a few missed frames before removal.
#include "gpuvis/track/tracker.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace gpuvis::track {
namespace {

constexpr float kTwoPi = 2.0f * std::numbers::pi_v<float>;

float wrap_angle(float a) {
  a = std::fmod(a, kTwoPi);
  return a < 0 ? a + kTwoPi : a;
}

// Updates position, velocity and acceleration from a new position; dt in seconds.
void move(Motion& m, float x, float y, float dt) {
  if (dt > 0) {
    const float vx = (x - m.x) / dt, vy = (y - m.y) / dt;
    const float speed = std::hypot(vx, vy), old_speed = std::hypot(m.vx, m.vy);
    m.accel = (speed - old_speed) / dt;
    m.vx = vx;
    m.vy = vy;
  }
  m.x = x;
  m.y = y;
}

void rotate(float& angle, float& speed, float& accel, float new_angle, float dt) {
  float d = wrap_angle(new_angle) - angle;
  if (d > std::numbers::pi_v<float>) d -= kTwoPi;
  if (d < -std::numbers::pi_v<float>) d += kTwoPi;
  if (dt > 0) {
    const float s = d / kTwoPi / dt;
    accel = (s - speed) / dt;
    speed = s;
  }
  angle = wrap_angle(new_angle);
}

// Greedy nearest pairing of `n_items` tracked items with `n_dets` detections: pairs sorted by
// distance, each item and detection used once, pairs farther than `limit(item)` refused.
template <class Dist, class Limit>
std::vector<int> pair_up(int n_items, int n_dets, Dist&& dist, Limit&& limit) {
  struct P {
    float d;
    int item, det;
  };
  std::vector<P> pairs;
  for (int i = 0; i < n_items; ++i)
    for (int j = 0; j < n_dets; ++j) {
      const float d = dist(i, j);
      if (d >= 0 && d < limit(i)) pairs.push_back({d, i, j});
    }
  std::sort(pairs.begin(), pairs.end(), [](const P& a, const P& b) { return a.d < b.d; });
  std::vector<int> match(static_cast<std::size_t>(n_items), -1);
  std::vector<bool> used(static_cast<std::size_t>(n_dets), false);
  for (const P& p : pairs)
    if (match[p.item] < 0 && !used[p.det]) {
      match[p.item] = p.det;
      used[p.det] = true;
    }
  return match;
}

// Smooths a new observation in place when `on`; filters are created with the item's parameters
// on first use. Angles are filtered unwrapped so 359° -> 1° is a small step, not a jump.
void smooth_position(Smoothing& s, bool on, float min_cutoff, float beta, float& x, float& y, float dt) {
  if (!on) return;
  if (!s.x.started()) s.x = OneEuroFilter(min_cutoff, beta, 10), s.y = OneEuroFilter(min_cutoff, beta, 10);
  x = s.x.filter(x, dt);
  y = s.y.filter(y, dt);
}

void smooth_angle(Smoothing& s, bool on, float min_cutoff, float beta, float d_cutoff, float previous, float& angle, float dt) {
  if (!on) return;
  if (!s.angle.started()) {
    s.angle = OneEuroFilter(min_cutoff, beta, d_cutoff);
    s.unwrapped = previous;
    s.angle.reset(previous);
  }
  float d = wrap_angle(angle) - wrap_angle(s.unwrapped);
  if (d > std::numbers::pi_v<float>) d -= kTwoPi;
  if (d < -std::numbers::pi_v<float>) d += kTwoPi;
  s.unwrapped += d;
  angle = wrap_angle(s.angle.filter(s.unwrapped, dt));
}

// Removes the items missed for `limit` frames, frees their small IDs and tells whether any of
// them had been visible (their removal changes the profile's alive list).
template <class Item>
bool drop_lost(std::vector<Item>& items, int limit, std::vector<int>& ids, int Item::*small_id) {
  bool visible_removed = false;
  std::erase_if(items, [&](const Item& item) {
    if (item.missed < limit) return false;
    std::erase(ids, item.*small_id);
    visible_removed = visible_removed || item.visible;
    return true;
  });
  return visible_removed;
}

// What the object needs to follow its root region later (§6.5): the root's size and colour and
// the symbol centre's offset from the root centroid.
void remember_root(Object& o, const decode::Fiducial& f) {
  o.root_size = f.root_size;
  o.root_colour = f.root_colour;
  o.root_dx = static_cast<float>(f.x - f.root_x);
  o.root_dy = static_cast<float>(f.y - f.root_y);
}

// reacTIVision's checkIdConflict (§6.4) for a symbol of ID `id` read at the object's place: true
// once that ID has been seen more often than the object's threshold allows (the symbol was really
// swapped), false while it still counts as a misread.
bool symbol_was_swapped(Object& o, int id) {
  if (id != o.conflict_id) {
    o.conflict_id = id;
    o.conflict_count = 0;
    return false;
  }
  ++o.conflict_count;
  --o.conflict_threshold;
  return o.conflict_count > o.conflict_threshold;
}

// A finger as a blob (§7.6): its oriented box and area.
decode::Blob finger_blob(const decode::Finger& f) { return {f.x, f.y, f.width, f.height, f.angle, f.area, f.region}; }

}  // namespace

int Tracker::next_small_id(std::vector<int>& used) {
  int id = 0;
  while (std::find(used.begin(), used.end(), id) != used.end()) ++id;
  used.push_back(id);
  return id;
}

// The frame being tracked: its detections, size and time step, and the motion prediction that
// every match measures distances from.
struct Tracker::Step {
  const decode::Detections& d;
  float W, H, dt;
  // Distance in pixels from an item's predicted position (constant velocity) to (x, y).
  float distance(const Motion& m, double x, double y) const {
    const double px = (m.x + m.vx * dt) * W, py = (m.y + m.vy * dt) * H;
    return static_cast<float>(std::hypot(px - x, py - y));
  }
};

namespace {

// The blob of fiducial or root candidate j (§7.6), when the detector measured them.
decode::Blob blob_of(const std::vector<decode::Blob>& blobs, std::size_t j) { return j < blobs.size() ? blobs[j] : decode::Blob{}; }

// How far an object may have moved and still be matched by a candidate or its root (§6.4, §6.5).
float reach(const Object& o) { return static_cast<float>(o.root_size) / 1.1f; }

}  // namespace

const Frame& Tracker::update(const decode::Detections& d, double time) {
  const float dt = first_ ? 0.0f : static_cast<float>(time - frame_.time);
  first_ = false;
  last_dt_ = dt;
  frame_.time = time;
  frame_.width = d.width;
  frame_.height = d.height;
  ++frame_.fseq;
  const Step step{d, static_cast<float>(d.width), static_cast<float>(d.height), dt};
  track_objects(step);
  track_cursors(step);
  track_blobs(step);
  return frame_;
}

void Tracker::expected_symbols(std::vector<decode::ExpectedSymbol>& out) const {
  out.clear();
  const double w = frame_.width, h = frame_.height;
  for (const Object& o : frame_.objects) {
    if (o.symbol_id < 0) continue;
    const double vx = o.m.vx * last_dt_ * w, vy = o.m.vy * last_dt_ * h;  // pixels per frame
    const double spin = static_cast<double>(o.rotation_speed) * kTwoPi * last_dt_;  // radians per frame
    const double angle = o.angle + spin;  // turning on as it did
    out.push_back({o.symbol_id, o.m.x * w + vx, o.m.y * h + vy, o.root_size, o.session_id, vx, vy, angle, spin});
  }
}

// ---- objects (fiducials, §6) ----

void Tracker::set_object_position(Object& o, const Step& s, float x, float y, float angle, bool with_angle) {
  smooth_position(o.smooth, params_.smooth_objects, 1.0f, 0.25f, x, y, s.dt);
  if (with_angle) smooth_angle(o.smooth, params_.smooth_objects, 1.0f, 0.25f, 10.0f, o.angle, angle, s.dt);
  move(o.m, x, y, s.dt);
  if (with_angle) rotate(o.angle, o.rotation_speed, o.rotation_accel, angle, s.dt);
  o.missed = 0;
  o.updated = true;
}

void Tracker::take_symbol(Object& o, const Step& s, std::size_t j, Tracking how) {
  const auto& f = s.d.fiducials[j];
  set_object_position(o, s, static_cast<float>(f.x / s.W), static_cast<float>(f.y / s.H), static_cast<float>(f.angle), true);
  remember_root(o, f);
  o.shape = blob_of(s.d.fiducial_blobs, j);
  o.tracking = how;
}

void Tracker::track_objects(const Step& s) {
  frame_.objects_changed = false;
  for (auto& o : frame_.objects) o.updated = false;
  std::vector<bool> used(s.d.fiducials.size(), false);
  std::vector<bool> replaced(frame_.objects.size(), false);
  match_same_symbols(s, used);
  match_nearby_candidates(s, used, replaced);
  follow_root_regions(s, replaced);
  drop_lost_objects(replaced);
  add_new_objects(s, used);
  for (const auto& o : frame_.objects) frame_.objects_changed = frame_.objects_changed || o.updated;
}

// 1. The same symbol ID, closest pairs first.
void Tracker::match_same_symbols(const Step& s, std::vector<bool>& used) {
  auto& objs = frame_.objects;
  const auto& fids = s.d.fiducials;
  const auto match = pair_up(
      static_cast<int>(objs.size()), static_cast<int>(fids.size()),
      [&](int i, int j) { return fids[j].id == objs[i].symbol_id ? s.distance(objs[i].m, fids[j].x, fids[j].y) : -1.0f; },
      [&](int i) { return std::max(20.0f, 2.0f * static_cast<float>(objs[i].root_size)); });
  for (std::size_t i = 0; i < objs.size(); ++i) {
    if (match[i] < 0) continue;
    used[match[i]] = true;
    // A print found by its appearance is the object's by construction: it adds no confidence.
    const bool followed = s.d.fiducials[match[i]].followed;
    take_symbol(objs[i], s, static_cast<std::size_t>(match[i]), followed ? Tracking::followed : Tracking::found);
    if (!followed) objs[i].conflict_threshold = std::min(objs[i].conflict_threshold + 1, 9);
  }
}

// 2. The nearest other candidate within reach (§6.4): a damaged symbol (fuzzy) moves the object
//    and keeps its angle; a symbol of another ID counts as a misread of this one, until the
//    conflict counter says the symbol really changed: then the object goes and the symbol becomes
//    a new object.
void Tracker::match_nearby_candidates(const Step& s, std::vector<bool>& used, std::vector<bool>& replaced) {
  auto& objs = frame_.objects;
  const auto& fids = s.d.fiducials;
  for (std::size_t i = 0; i < objs.size(); ++i) {
    Object& o = objs[i];
    if (o.updated) continue;
    int best = -1;
    float best_d = reach(o);
    for (std::size_t j = 0; j < fids.size(); ++j) {
      if (used[j] || fids[j].id == o.symbol_id) continue;
      const float dist = s.distance(o.m, fids[j].x, fids[j].y);
      if (dist < best_d) best_d = dist, best = static_cast<int>(j);
    }
    if (best < 0) continue;
    const auto& f = fids[best];
    if (f.fuzzy()) {
      used[best] = true;
      set_object_position(o, s, static_cast<float>(f.x / s.W), static_cast<float>(f.y / s.H), o.angle, false);
      o.shape = blob_of(s.d.fiducial_blobs, static_cast<std::size_t>(best));
      o.tracking = Tracking::fuzzy;
    } else if (symbol_was_swapped(o, f.id)) {
      replaced[i] = true;
    } else {
      used[best] = true;
      take_symbol(o, s, static_cast<std::size_t>(best), Tracking::fuzzy);
    }
  }
}

// 3. The root region alone (§6.5): a symbol whose inside no longer decodes (motion blur, a hand
//    over it) follows its root region, of its colour and about its size, with the angle kept.
void Tracker::follow_root_regions(const Step& s, const std::vector<bool>& replaced) {
  auto& objs = frame_.objects;
  const auto& roots = s.d.roots;
  std::vector<bool> root_used(roots.size(), false);
  for (std::size_t i = 0; i < objs.size(); ++i) {
    Object& o = objs[i];
    // A print followed by its appearance last frame is looked for by it again (the detector's
    // second look): where that finds nothing, neither is its smeared root a sure sign of it (a
    // print leaving the frame was followed onto another's root region that way).
    if (o.updated || replaced[i] || o.tracking == Tracking::followed) continue;
    int best = -1;
    float best_d = reach(o);
    // A moving symbol's root is smeared along its motion, up to the distance it moves in a frame,
    // and once the outline around it smears away it merges with the paper around the print (up to
    // 1.21 times the root's size): it may be that much larger than when it was still.
    const float smear = std::hypot(o.m.vx * s.W, o.m.vy * s.H) * s.dt;
    const float largest = smear > 1 ? static_cast<float>(o.root_size) * 1.2f * 1.21f + smear : static_cast<float>(o.root_size) * 1.2f;
    for (std::size_t j = 0; j < roots.size(); ++j) {
      const auto& c = roots[j];
      if (root_used[j] || c.colour != o.root_colour || c.size * 1.2 < o.root_size || static_cast<float>(c.size) > largest) continue;
      const float dist = s.distance(o.m, c.x + o.root_dx, c.y + o.root_dy);
      if (dist < best_d) best_d = dist, best = static_cast<int>(j);
    }
    if (best < 0) continue;
    root_used[best] = true;
    const auto& c = roots[best];
    float x = static_cast<float>((c.x + o.root_dx) / s.W), y = static_cast<float>((c.y + o.root_dy) / s.H);
    if (std::hypot((x - o.m.x) * s.W, (y - o.m.y) * s.H) < 0.5f) x = o.m.x, y = o.m.y;  // at rest: no jitter
    set_object_position(o, s, x, y, o.angle, false);
    o.shape = blob_of(s.d.root_blobs, static_cast<std::size_t>(best));
    o.tracking = Tracking::root;
  }
}

// Objects not seen for lost_frames_object frames go; a replaced one goes now.
void Tracker::drop_lost_objects(const std::vector<bool>& replaced) {
  auto& objs = frame_.objects;
  for (std::size_t i = 0; i < objs.size(); ++i) {
    if (!objs[i].updated) ++objs[i].missed;
    if (replaced[i]) objs[i].missed = params_.lost_frames_object;
  }
  const auto before = objs.size();
  std::erase_if(objs, [&](const Object& o) { return o.missed >= params_.lost_frames_object; });
  frame_.objects_changed = objs.size() != before;
}

// Every decoded symbol no object took becomes a new object (fuzzy candidates and followed prints never do).
void Tracker::add_new_objects(const Step& s, const std::vector<bool>& used) {
  for (std::size_t j = 0; j < s.d.fiducials.size(); ++j) {
    const auto& f = s.d.fiducials[j];
    if (used[j] || f.fuzzy() || f.followed) continue;  // a followed print is an object's already
    Object o{};
    o.session_id = next_session();
    o.symbol_id = f.id;
    o.angle = wrap_angle(static_cast<float>(f.angle));
    o.m.x = static_cast<float>(f.x / s.W);
    o.m.y = static_cast<float>(f.y / s.H);
    remember_root(o, f);
    o.shape = blob_of(s.d.fiducial_blobs, j);
    o.updated = true;
    frame_.objects.push_back(o);
  }
}

// ---- cursors (fingers, §7) ----

void Tracker::track_cursors(const Step& s) {
  auto& curs = frame_.cursors;
  const auto& fingers = s.d.fingers;
  for (auto& c : curs) c.updated = false;
  const auto match = pair_up(
      static_cast<int>(curs.size()), static_cast<int>(fingers.size()),
      [&](int i, int j) { return s.distance(curs[i].m, fingers[j].x, fingers[j].y); },
      [&](int i) { return std::max(10.0f, 2.0f * curs[i].size); });
  std::vector<bool> used(fingers.size(), false);
  for (std::size_t i = 0; i < curs.size(); ++i) {
    if (match[i] < 0) {
      ++curs[i].missed;
      continue;
    }
    const auto& f = fingers[match[i]];
    used[match[i]] = true;
    float x = static_cast<float>(f.x / s.W), y = static_cast<float>(f.y / s.H);
    smooth_position(curs[i].smooth, params_.smooth_cursors, 1.0f, 0.25f, x, y, s.dt);
    move(curs[i].m, x, y, s.dt);
    curs[i].size = static_cast<float>(std::max(f.width, f.height));
    if (s.d.finger_blobs) curs[i].shape = finger_blob(f);
    curs[i].missed = 0;
    curs[i].updated = true;
    curs[i].visible = true;
  }
  frame_.cursors_changed = drop_lost(curs, params_.lost_frames_cursor, cursor_ids_, &Cursor::cursor_id);
  for (std::size_t j = 0; j < fingers.size(); ++j) {
    if (used[j]) continue;
    const auto& f = fingers[j];
    Cursor c{};
    c.session_id = next_session();
    c.cursor_id = next_small_id(cursor_ids_);
    c.size = static_cast<float>(std::max(f.width, f.height));
    c.m.x = static_cast<float>(f.x / s.W);
    c.m.y = static_cast<float>(f.y / s.H);
    if (s.d.finger_blobs) c.shape = finger_blob(f);
    c.updated = true;
    curs.push_back(c);
  }
  for (const auto& c : curs) frame_.cursors_changed = frame_.cursors_changed || (c.updated && c.visible);
}

// ---- blobs (§7.5, §7.6) ----

void Tracker::track_blobs(const Step& s) {
  for (auto& b : frame_.blobs) b.updated = false;
  follow_owners(s);
  match_plain_blobs(s);
  add_owned_blobs(s);
  for (const auto& b : frame_.blobs) frame_.blobs_changed = frame_.blobs_changed || (b.updated && b.visible);
}

void Tracker::fill_blob(TrackedBlob& t, const Step& s, const decode::Blob& b) {
  t.width = static_cast<float>(b.width / s.W);
  t.height = static_cast<float>(b.height / s.H);
  t.area = static_cast<float>(b.area / (static_cast<double>(s.W) * s.H));
}

void Tracker::update_blob(TrackedBlob& t, const Step& s, const decode::Blob& b) {
  float x = static_cast<float>(b.x / s.W), y = static_cast<float>(b.y / s.H), a = static_cast<float>(b.angle);
  smooth_position(t.smooth, params_.smooth_blobs, 0.5f, 0.15f, x, y, s.dt);
  smooth_angle(t.smooth, params_.smooth_blobs, 0.5f, 0.15f, 1.0f, t.angle, a, s.dt);
  move(t.m, x, y, s.dt);
  rotate(t.angle, t.rotation_speed, t.rotation_accel, a, s.dt);
  fill_blob(t, s, b);
  t.missed = 0;
  t.updated = true;
}

void Tracker::add_blob(const Step& s, const decode::Blob& b, std::int32_t session, BlobOwner owner, bool visible) {
  TrackedBlob t{};
  t.session_id = session;
  t.blob_id = next_small_id(blob_ids_);
  t.owner = owner;
  t.angle = static_cast<float>(b.angle);
  t.m.x = static_cast<float>(b.x / s.W);
  t.m.y = static_cast<float>(b.y / s.H);
  fill_blob(t, s, b);
  t.updated = true;
  t.visible = visible;
  frame_.blobs.push_back(t);
}

// Blobs of objects and cursors (§7.6) live exactly as long as their owner, move when it is updated
// and are shown when it is.
void Tracker::follow_owners(const Step& s) {
  const auto& objs = frame_.objects;
  const auto& curs = frame_.cursors;
  for (auto& t : frame_.blobs) {
    if (t.owner == BlobOwner::none) continue;
    const decode::Blob* shape = nullptr;
    bool owner_updated = false, owner_visible = false;
    if (t.owner == BlobOwner::object) {
      const auto o = std::find_if(objs.begin(), objs.end(), [&](const Object& x) { return x.session_id == t.session_id; });
      if (o != objs.end()) shape = &o->shape, owner_updated = o->updated, owner_visible = true;
    } else {
      const auto c = std::find_if(curs.begin(), curs.end(), [&](const Cursor& x) { return x.session_id == t.session_id; });
      if (c != curs.end()) shape = &c->shape, owner_updated = c->updated, owner_visible = c->visible;
    }
    if (!shape) {
      t.missed = params_.lost_frames_blob;  // its owner is gone: it goes now
      continue;
    }
    if (owner_updated && shape->ok()) update_blob(t, s, *shape);
    t.visible = owner_visible;
  }
}

// Plain blobs (§7.5): paired with the plain tracked blobs only; the unpaired ones become new blobs.
void Tracker::match_plain_blobs(const Step& s) {
  auto& blbs = frame_.blobs;
  const auto& found = s.d.blobs;
  const auto match = pair_up(
      static_cast<int>(blbs.size()), static_cast<int>(found.size()),
      [&](int i, int j) { return blbs[i].owner != BlobOwner::none ? -1.0f : s.distance(blbs[i].m, found[j].x, found[j].y); },
      [&](int i) { return std::max(10.0f, std::max(blbs[i].width * s.W, blbs[i].height * s.H)); });
  std::vector<bool> used(found.size(), false);
  for (std::size_t i = 0; i < blbs.size(); ++i) {
    if (blbs[i].owner != BlobOwner::none) continue;
    if (match[i] < 0) {
      ++blbs[i].missed;
      continue;
    }
    used[match[i]] = true;
    update_blob(blbs[i], s, found[match[i]]);
    blbs[i].visible = true;
  }
  frame_.blobs_changed = drop_lost(blbs, params_.lost_frames_blob, blob_ids_, &TrackedBlob::blob_id);
  for (std::size_t j = 0; j < found.size(); ++j)
    if (!used[j]) add_blob(s, found[j], next_session(), BlobOwner::none, false);
}

// A new object or cursor with a blob gets its blob, under its own session ID.
void Tracker::add_owned_blobs(const Step& s) {
  auto has_blob = [&](std::int32_t session, BlobOwner owner) {
    return std::any_of(frame_.blobs.begin(), frame_.blobs.end(),
                       [&](const TrackedBlob& t) { return t.owner == owner && t.session_id == session; });
  };
  if (s.d.object_blobs)
    for (const auto& o : frame_.objects)
      if (o.shape.ok() && !has_blob(o.session_id, BlobOwner::object)) add_blob(s, o.shape, o.session_id, BlobOwner::object, true);
  if (s.d.finger_blobs)
    for (const auto& c : frame_.cursors)
      if (c.shape.ok() && !has_blob(c.session_id, BlobOwner::cursor)) add_blob(s, c.shape, c.session_id, BlobOwner::cursor, c.visible);
}

const Frame& Tracker::clear(double time) {
  frame_.time = time;
  ++frame_.fseq;
  frame_.objects_changed = !frame_.objects.empty();
  frame_.cursors_changed = !frame_.cursors.empty();
  frame_.blobs_changed = !frame_.blobs.empty();
  frame_.objects.clear();
  frame_.cursors.clear();
  frame_.blobs.clear();
  cursor_ids_.clear();
  blob_ids_.clear();
  return frame_;
}

}  // namespace gpuvis::track
