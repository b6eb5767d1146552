#include "numatwin/validate/host/rss_sampler.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string>

namespace numatwin::validate {

std::uint64_t statm_resident_pages(std::string_view text) {
  std::size_t at = text.find_first_not_of(' ');
  if (at != std::string_view::npos) at = text.find(' ', at);               // end of "size"
  if (at != std::string_view::npos) at = text.find_first_not_of(' ', at);  // start of "resident"
  std::uint64_t pages = 0;
  if (at != std::string_view::npos) {
    const char* begin = text.data() + at;
    const char* end = text.data() + text.size();
    const auto [next, error] = std::from_chars(begin, end, pages);
    if (error == std::errc() && (next == end || *next == ' ' || *next == '\n')) return pages;
  }
  throw std::runtime_error("/proc/self/statm: expected \"size resident ...\" in pages, read \"" +
                           std::string(text.substr(0, 80)) + "\"");
}

double current_rss_bytes() {
  char buffer[256];
  const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open /proc/self/statm");
  const ssize_t n = ::read(fd, buffer, sizeof buffer - 1);
  ::close(fd);
  if (n <= 0) throw std::runtime_error("cannot read /proc/self/statm");
  static const long page_bytes = ::sysconf(_SC_PAGESIZE);
  return static_cast<double>(
             statm_resident_pages(std::string_view(buffer, static_cast<std::size_t>(n)))) *
         static_cast<double>(page_bytes);
}

RssSampler::RssSampler(std::chrono::steady_clock::time_point origin, double period_ms)
    : origin_(origin) {
  if (!(period_ms > 0.0)) throw std::invalid_argument("the RSS sampling period must be above 0 ms");
  period_ = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double, std::milli>(period_ms));
  samples_.reserve(static_cast<std::size_t>(std::min(3.6e6 / period_ms, 1e6)));
  take_sample();
  thread_ = std::thread([this] {
    auto next = std::chrono::steady_clock::now() + period_;
    while (!stopping_.load(std::memory_order_relaxed)) {
      std::this_thread::sleep_until(next);
      next += period_;
      if (stopping_.load(std::memory_order_relaxed)) break;
      try {
        take_sample();
      } catch (const std::exception&) {
        break;  // statm unreadable mid-run: keep the samples so far (stop() reads it once more and
                // reports)
      }
    }
  });
}

RssSampler::~RssSampler() {
  if (thread_.joinable()) {
    stopping_ = true;
    thread_.join();
  }
}

void RssSampler::take_sample() {
  const double rss = current_rss_bytes();
  samples_.push_back(
      {std::chrono::duration<double>(std::chrono::steady_clock::now() - origin_).count(), rss});
}

std::vector<RssSample> RssSampler::stop() {
  if (thread_.joinable()) {
    stopping_ = true;
    thread_.join();
  }
  take_sample();
  return std::move(samples_);
}

}  // namespace numatwin::validate
