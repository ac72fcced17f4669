#include "sim/power_loss.h"

#include <algorithm>
#include <unordered_map>

namespace ssdlab::sim {

PowerLossTracker::PowerLossTracker(uint64_t user_pages, bool plp, uint64_t budget_units,
                                   uint64_t map_period_ns)
    : held_(user_pages, 0), plp_(plp), budget_units_(budget_units), map_period_ns_(map_period_ns) {}

void PowerLossTracker::Buffered(uint64_t slot, uint64_t lpn, uint64_t ready_ns, uint64_t now_ns) {
  if (pending_.empty()) {
    base_slot_ = slot;
    unacked_from_ = 0;
  } else if (pending_.size() > 64) {
    Retire(now_ns);
  }
  if (pending_.empty()) base_slot_ = slot;
  Entry e;
  e.lpn = lpn;
  e.tag = tag_;
  e.ready_ns = ready_ns;
  pending_.push_back(e);
}

void PowerLossTracker::Programmed(uint64_t first_slot, uint64_t n, uint64_t end_ns) {
  const uint64_t end_slot = base_slot_ + pending_.size();
  for (uint64_t s = std::max(first_slot, base_slot_); s < first_slot + n && s < end_slot; ++s)
    pending_[s - base_slot_].nand_ns = end_ns;
}

void PowerLossTracker::Acked(uint64_t ack_ns, bool fua) {
  for (size_t i = unacked_from_; i < pending_.size(); ++i) {
    pending_[i].ack_ns = ack_ns;
    if (fua) pending_[i].sync_ns = ack_ns;
  }
  unacked_from_ = pending_.size();
}

void PowerLossTracker::Flushed(uint64_t submit_ns, uint64_t done_ns) {
  auto mark = [&](Entry& e) {
    if (e.ack_ns <= submit_ns && e.sync_ns == UINT64_MAX) e.sync_ns = done_ns;
  };
  for (Entry& e : pending_) mark(e);
  for (Entry& e : recent_) mark(e);
}

void PowerLossTracker::Apply(const Entry& e) {
  if (e.tag > held_[e.lpn]) held_[e.lpn] = e.tag;
}

void PowerLossTracker::Retire(uint64_t now_ns) {
  if (map_period_ns_ > 0) {
    const uint64_t c = now_ns / map_period_ns_ * map_period_ns_;
    if (c > last_checkpoint_ns_) Checkpoint(c);
  }
  while (unacked_from_ > 0 && pending_.front().nand_ns <= now_ns) {
    const Entry& e = pending_.front();
    if (map_period_ns_ == 0 || e.nand_ns <= last_checkpoint_ns_) {
      Apply(e);
    } else {
      recent_.push_back(e);
    }
    pending_.pop_front();
    ++base_slot_;
    --unacked_from_;
  }
}

void PowerLossTracker::Checkpoint(uint64_t upto) {
  size_t kept = 0;
  for (const Entry& e : recent_) {
    if (e.nand_ns <= upto) {
      Apply(e);
    } else {
      recent_[kept++] = e;
    }
  }
  recent_.resize(kept);
  last_checkpoint_ns_ = upto;
}

PowerCutTruth PowerLossTracker::Cut(uint64_t t_ns) {
  PowerCutTruth truth;
  truth.cut_ns = t_ns;
  // The horizon of mapping updates that survive: the last checkpoint, or the cut itself.
  const uint64_t horizon =
      map_period_ns_ > 0 ? std::max(last_checkpoint_ns_, t_ns / map_period_ns_ * map_period_ns_)
                         : t_ns;
  if (map_period_ns_ > 0 && horizon > last_checkpoint_ns_) Checkpoint(horizon);
  // Every entry still tracked, in slot order (recent_ before pending_), with its durable time.
  std::vector<std::pair<const Entry*, uint64_t>> all;
  all.reserve(recent_.size() + pending_.size());
  for (const Entry& e : recent_) all.emplace_back(&e, e.nand_ns);
  uint64_t saved = 0;
  for (const Entry& e : pending_) {
    uint64_t durable = UINT64_MAX;
    if (e.nand_ns <= t_ns) {
      durable = e.nand_ns;
    } else if (e.ready_ns <= t_ns) {
      ++truth.units_in_buffer;
      if (plp_ && (budget_units_ == 0 || saved < budget_units_)) {
        ++saved;
        durable = t_ns;
      }
    }
    all.emplace_back(&e, durable);
  }
  truth.units_saved = saved;
  for (const auto& [e, durable] : all)
    if (durable <= horizon) Apply(*e);
  // The newest acknowledged and the newest durable-promised write of each unit touched.
  struct Newest {
    uint32_t acked = 0, synced = 0;
    bool acked_durable = false, synced_durable = false;  // on NAND (or saved) by the cut
  };
  std::unordered_map<uint64_t, Newest> units;
  for (const auto& [e, durable] : all) {
    if (e->tag == 0 || e->ack_ns > t_ns) continue;
    Newest& n = units[e->lpn];
    if (e->tag > n.acked) {
      n.acked = e->tag;
      n.acked_durable = durable <= t_ns;
    }
    if (e->sync_ns <= t_ns && e->tag > n.synced) {
      n.synced = e->tag;
      n.synced_durable = durable <= t_ns;
    }
  }
  for (const auto& [lpn, n] : units) {
    const uint32_t held = held_[lpn];
    if (held < n.synced) {
      ++truth.lost_flushed;
      if (n.synced_durable) ++truth.mapping;
    } else if (held < n.acked) {
      ++truth.lost_unflushed;
      if (n.acked_durable) ++truth.mapping;
    }
  }
  // Power is back: the drive holds held_, its mapping persisted at power-on.
  recent_.clear();
  pending_.clear();
  unacked_from_ = 0;
  last_checkpoint_ns_ = t_ns;
  return truth;
}

}  // namespace ssdlab::sim
