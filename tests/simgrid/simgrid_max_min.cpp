// SimGrid side of the differential test; see simgrid_max_min.hpp for the mapping and method.
#include "simgrid_max_min.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <simgrid/s4u.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace numatwin::simgrid_diff {
namespace {

namespace sg4 = simgrid::s4u;

// Smallest H with H * (H - 1) >= flows: each flow gets its own ordered pair of hosts, and so its
// own route, in a full routing zone (whose table is H^2, so one host pair per flow is avoided).
int hosts_for(int flows) {
  int hosts = 2;
  while (static_cast<long long>(hosts) * (hosts - 1) < flows) ++hosts;
  return hosts;
}

void check_expressible(const model::MaxMinProblem& problem) {
  for (int r = 0; r < problem.resource_count(); ++r) {
    if (!(problem.capacity(r) > 0.0)) {
      throw std::invalid_argument("SimGrid: resource " + std::to_string(r) +
                                  ": zero capacity is not expressible");
    }
  }
  for (int f = 0; f < problem.flow_count(); ++f) {
    if (problem.uses(f).empty()) {
      throw std::invalid_argument("SimGrid: flow " + std::to_string(f) + " has no resource");
    }
    if (problem.weight(f) != 1.0) {
      throw std::invalid_argument("SimGrid: flow " + std::to_string(f) +
                                  ": per-flow weights are not expressible");
    }
    if (problem.rate_bound(f) == 0.0) {
      throw std::invalid_argument("SimGrid: flow " + std::to_string(f) +
                                  ": SimGrid reads a zero rate bound as 'no bound'");
    }
    for (const model::ResourceUse& use : problem.uses(f)) {
      if (use.coefficient != std::floor(use.coefficient) || use.coefficient > 64) {
        throw std::invalid_argument("SimGrid: flow " + std::to_string(f) +
                                    ": only small integer coefficients are expressible");
      }
    }
  }
}

bool write_all(int fd, const void* data, std::size_t bytes) {
  const auto* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::write(fd, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
  return true;
}

bool read_all(int fd, void* data, std::size_t bytes) {
  auto* p = static_cast<char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::read(fd, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
  return true;
}

// Runs in the forked child: one engine, one platform, one measuring actor.
std::vector<double> run_engine(const model::MaxMinProblem& problem,
                               const SimGridRunOptions& options) {
  std::vector<std::string> arguments{"simgrid_max_min"};
  if (options.plain_max_min) {
    const std::vector<std::string> plain = plain_max_min_arguments();
    arguments.insert(arguments.end(), plain.begin(), plain.end());
  } else {
    arguments.emplace_back("--log=root.thres:critical");
  }
#if defined(__SANITIZE_ADDRESS__)
  // SimGrid's default contexts switch stacks behind AddressSanitizer's back (false reports);
  // system threads are slower but sanitizer-clean.
  arguments.emplace_back("--cfg=contexts/factory:thread");
#endif
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(arguments.size());
  sg4::Engine engine(&argc, argv.data());

  const int flows = problem.flow_count();
  const int host_count = hosts_for(flows);
  sg4::NetZone* zone = sg4::create_full_zone("world");
  std::vector<sg4::Host*> hosts;
  for (int h = 0; h < host_count; ++h) {
    hosts.push_back(zone->create_host("host" + std::to_string(h), 1e9)->seal());
  }
  std::vector<sg4::Link*> links;
  double max_capacity = 0.0;
  for (int r = 0; r < problem.resource_count(); ++r) {
    max_capacity = std::max(max_capacity, problem.capacity(r));
    links.push_back(zone->create_link("link" + std::to_string(r), problem.capacity(r))
                        ->set_sharing_policy(sg4::Link::SharingPolicy::SHARED)
                        ->set_latency(0.0)
                        ->seal());
  }
  std::vector<std::pair<int, int>> host_index;  // per flow: (source host, destination host)
  for (int f = 0, src = 0, dst = 1; f < flows; ++f) {
    host_index.emplace_back(src, dst);
    std::vector<sg4::LinkInRoute> route;
    for (const model::ResourceUse& use : problem.uses(f)) {
      for (int k = 0; k < static_cast<int>(use.coefficient); ++k)
        route.emplace_back(links[use.resource]);
    }
    zone->add_route(hosts[src]->get_netpoint(), hosts[dst]->get_netpoint(), nullptr, nullptr, route,
                    /*symmetrical=*/false);
    if (++dst == src) ++dst;
    if (dst == host_count) {
      ++src;
      dst = src == 0 ? 1 : 0;
    }
  }
  zone->seal();

  // A rate never exceeds the largest capacity, so this payload cannot complete before T.
  const double time_s = options.measure_time_s;
  const auto payload = static_cast<std::uint64_t>(std::ceil(2.0 * max_capacity * time_s)) + 16;

  // Mailbox comms, because SimGrid 3.32 ignores set_rate() on host-to-host (sendto) comms.
  // On every host one actor sends the flows that start there and one receives those that end
  // there; all comms are posted at t = 0, so they match and start at t = 0.
  std::vector<std::vector<int>> sent_from(static_cast<std::size_t>(host_count));
  std::vector<std::vector<int>> received_at(static_cast<std::size_t>(host_count));
  for (int f = 0; f < flows; ++f) {
    sent_from[host_index[f].first].push_back(f);
    received_at[host_index[f].second].push_back(f);
  }
  std::vector<double> rates(static_cast<std::size_t>(flows), 0.0);
  std::vector<void*> received(static_cast<std::size_t>(flows), nullptr);
  static int dummy_payload = 0;
  for (int h = 0; h < host_count; ++h) {
    if (!sent_from[h].empty()) {
      sg4::Actor::create("send" + std::to_string(h), hosts[h], [&, h] {
        std::vector<sg4::CommPtr> comms;
        for (const int f : sent_from[h]) {
          sg4::CommPtr comm =
              sg4::Mailbox::by_name("flow" + std::to_string(f))->put_init(&dummy_payload, payload);
          if (!std::isinf(problem.rate_bound(f))) comm->set_rate(problem.rate_bound(f));
          comm->start();
          comms.push_back(comm);
        }
        sg4::this_actor::sleep_for(time_s);
        for (std::size_t k = 0; k < comms.size(); ++k) {
          const double elapsed_s = time_s - comms[k]->get_start_time();
          rates[sent_from[h][k]] =
              (static_cast<double>(payload) - comms[k]->get_remaining()) / elapsed_s;
          comms[k]->cancel();
        }
      });
    }
    if (!received_at[h].empty()) {
      sg4::Actor::create("receive" + std::to_string(h), hosts[h], [&, h] {
        std::vector<sg4::CommPtr> comms;
        for (const int f : received_at[h]) {
          comms.push_back(
              sg4::Mailbox::by_name("flow" + std::to_string(f))->get_async(&received[f]));
        }
        sg4::this_actor::sleep_for(2 * time_s);  // the senders cancel the comms at T
      });
    }
  }
  engine.run();
  return rates;
}

}  // namespace

std::vector<std::string> plain_max_min_arguments() {
  return {
      "--cfg=network/model:CM02",          // max-min sharing without LV08's corrections
      "--cfg=network/crosstraffic:0",      // no 5% reverse-path load on the links
      "--cfg=network/weight-S:0",          // penalty = latency only (= 0): equal shares
      "--cfg=network/TCP-gamma:0",         // no window bound gamma / (2 latency)
      "--cfg=network/latency-factor:1",    //
      "--cfg=network/bandwidth-factor:1",  // a comm may use 100% of a link
      "--cfg=maxmin/precision:1e-13",      // lmm's saturation test, relative to capacities
      "--cfg=surf/precision:1e-13",        // remaining-work rounding
      "--log=root.thres:critical",         // silence SimGrid's logs
  };
}

std::vector<double> simgrid_max_min_rates(const model::MaxMinProblem& problem,
                                          const SimGridRunOptions& options) {
  check_expressible(problem);
  const auto flows = static_cast<std::size_t>(problem.flow_count());
  if (flows == 0) return {};

  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("SimGrid: pipe() failed");
  std::fflush(nullptr);  // do not duplicate buffered output into the child
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error("SimGrid: fork() failed");
  }
  if (child == 0) {
    ::close(fds[0]);
    int status = 1;
    try {
      const std::vector<double> rates = run_engine(problem, options);
      status = write_all(fds[1], rates.data(), rates.size() * sizeof(double)) ? 0 : 2;
    } catch (const std::exception& error) {
      std::fprintf(stderr, "SimGrid child: %s\n", error.what());
    }
    ::close(fds[1]);
    std::fflush(nullptr);
    ::_exit(status);  // no atexit handlers, no destructors of the parent's objects
  }
  ::close(fds[1]);
  std::vector<double> rates(flows, 0.0);
  const bool complete = read_all(fds[0], rates.data(), flows * sizeof(double));
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!complete || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("SimGrid child failed (status " + std::to_string(status) + ")");
  }
  return rates;
}

}  // namespace numatwin::simgrid_diff
