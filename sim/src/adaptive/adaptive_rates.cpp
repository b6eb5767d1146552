// Rates in the adaptive engine (adaptive_engine_state.hpp): what every running task and the
// placer's copy stream get from the bandwidth model (model/bandwidth_model.hpp).
//
// Every running task is a stream on its own core: from its worker's socket to the memory of its
// part's socket, lines_in_flight of its class, rate limit frequency / cycles_per_byte (none when
// cycles_per_byte is 0). The k-th task running on a socket takes core k mod cores. A placer
// operation's phase is one more stream, on the last worker core of its socket
// (min(W, cores) - 1), from its read socket to its write socket, limited to
// page_bytes / cost per page. The model shares memory controllers and links max-min among them.
// Cores of a socket are interchangeable, so the rates depend only on how many tasks of each
// (worker socket, data socket, class) group run, and on the operation's phase: that is the
// cache's key; a group's rate is the mean over its streams. The memory load and utilisation of
// every socket's controller come with each solution (for the samples and the timeline).
// When to solve again: at once when a group starts from zero or the operation changes
// (new_group); when only counts within running groups changed (dirty), at most every
// rate_refresh_s (AdaptiveRunOptions); otherwise never. The cache is emptied past 50000 keys.
#include <algorithm>

#include "adaptive_engine_state.hpp"

namespace numatwin::sim::adaptive_detail {

const CachedRates& Engine::rates() {
  RateCache& cache = rate_cache_;
  const bool fresh = !cache.dirty || (!cache.new_group && now_ - cache.solved_s < options_.rate_refresh_s);
  if (cache.current != nullptr && fresh) return *cache.current;
  cache.new_group = false;
  cache.solved_s = now_;
  std::vector<int> key = group_count_;
  if (operation_) {
    const OperationPhase& ph = operation_->phases[operation_->phase];
    key.insert(key.end(), {ph.read_socket, ph.write_socket, ph.run_socket});
  }
  auto it = cache.solutions.find(key);
  if (it == cache.solutions.end()) {
    if (cache.solutions.size() > 50000) cache.solutions.clear();
    std::vector<model::Stream> streams;
    std::vector<int> stream_group;
    for (int w = 0; w < S_; ++w) {
      const model::Node& node = t_.nodes[nodes_[w]];
      int core = 0;
      for (int d = 0; d < S_; ++d) {
        for (int c = 0; c < C_; ++c) {
          const int g = (w * S_ + d) * C_ + c;
          for (int k = 0; k < group_count_[g]; ++k) {
            model::Stream st;
            st.cpu_node = nodes_[w];
            st.core = model_.core_of(nodes_[w], core++ % node.cores);
            st.read_node = nodes_[d];
            st.lines_in_flight = sc_.classes[c].lines_in_flight;
            const double cpb = sc_.classes[c].cycles_per_byte;
            if (cpb > 0.0) st.rate_limit_bytes_per_s = node.frequency_ghz * 1e9 / cpb;
            streams.push_back(st);
            stream_group.push_back(g);
          }
        }
      }
    }
    if (operation_) {
      const OperationPhase& ph = operation_->phases[operation_->phase];
      const model::Node& node = t_.nodes[nodes_[ph.run_socket]];
      model::Stream st;
      st.cpu_node = nodes_[ph.run_socket];
      st.core = model_.core_of(st.cpu_node, std::max(0, std::min(W_, node.cores) - 1));
      st.read_node = nodes_[ph.read_socket];
      st.write_node = nodes_[ph.write_socket];
      st.rate_limit_bytes_per_s = ph.limit_bytes_per_s;
      streams.push_back(st);
      stream_group.push_back(-1);
    }
    CachedRates cr;
    cr.group_rate.assign(group_count_.size(), 0.0);
    cr.memory_load.assign(S_, 0.0);
    cr.memory_utilisation.assign(S_, 0.0);
    if (!streams.empty()) {
      const model::StreamRates& r = model_.solve(streams);
      for (std::size_t i = 0; i < streams.size(); ++i) {
        if (stream_group[i] < 0) {
          cr.operation_rate = r.rate_bytes_per_s[i];
        } else {
          cr.group_rate[stream_group[i]] += r.rate_bytes_per_s[i] / group_count_[stream_group[i]];
        }
      }
      for (int s = 0; s < S_; ++s) {
        const int res = model_.memory_resource(nodes_[s]);
        cr.memory_load[s] = r.resource_load_bytes_per_s[res];
        cr.memory_utilisation[s] = r.utilisation[res];
      }
    }
    it = cache.solutions.emplace(std::move(key), std::move(cr)).first;
  }
  cache.current = &it->second;
  cache.dirty = false;
  return *cache.current;
}

}  // namespace numatwin::sim::adaptive_detail
