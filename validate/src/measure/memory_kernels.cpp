#include "numatwin/validate/measure/memory_kernels.hpp"

#include <cstring>
#include <random>
#include <utility>
#include <vector>

namespace numatwin::validate {
namespace {

using Vector = long long __attribute__((vector_size(16)));

}  // namespace

std::uint64_t read_stream(const std::byte* data, std::size_t bytes) {
  Vector a{0, 0}, b{0, 0}, c{0, 0}, d{0, 0};
  for (std::size_t at = 0; at + kCacheLineBytes <= bytes; at += kCacheLineBytes) {
    Vector v[4];
    std::memcpy(v, data + at, sizeof v);
    a ^= v[0];
    b ^= v[1];
    c ^= v[2];
    d ^= v[3];
  }
  const Vector sum = a ^ b ^ c ^ d;
  return static_cast<std::uint64_t>(sum[0] ^ sum[1]);
}

void write_stream(std::byte* data, std::size_t bytes, std::uint64_t value) {
  const Vector v{static_cast<long long>(value), static_cast<long long>(value)};
  for (std::size_t at = 0; at + kCacheLineBytes <= bytes; at += kCacheLineBytes) {
    const Vector line[4] = {v, v, v, v};
    std::memcpy(data + at, line, sizeof line);
  }
  asm volatile("" : : "r"(data) : "memory");
}

void copy_stream(std::byte* dst, const std::byte* src, std::size_t bytes) {
  for (std::size_t at = 0; at + kCacheLineBytes <= bytes; at += kCacheLineBytes) {
    Vector line[4];
    std::memcpy(line, src + at, sizeof line);
    std::memcpy(dst + at, line, sizeof line);
  }
  asm volatile("" : : "r"(dst) : "memory");
}

std::uint64_t read_stream_delayed(const std::byte* data, std::size_t bytes, int delay) {
  std::uint64_t sum = 0;
  for (std::size_t at = 0; at + kCacheLineBytes <= bytes; at += kCacheLineBytes) {
    std::uint64_t word = 0;
    std::memcpy(&word, data + at, sizeof word);
    sum += word;
    for (int i = 0; i < delay; ++i) asm volatile("" : : : "memory");
  }
  return sum;
}

const void* build_pointer_chase(std::byte* data, std::size_t lines, std::uint64_t seed) {
  std::vector<std::uint32_t> order(lines);
  for (std::size_t i = 0; i < lines; ++i) order[i] = static_cast<std::uint32_t>(i);
  std::mt19937_64 random(seed);
  // Sattolo: a uniformly random permutation with a single cycle.
  for (std::size_t i = lines - 1; i > 0; --i) {
    std::uniform_int_distribution<std::size_t> pick(0, i - 1);
    std::swap(order[i], order[pick(random)]);
  }
  for (std::size_t i = 0; i < lines; ++i) {
    const std::byte* next = data + static_cast<std::size_t>(order[(i + 1) % lines]) * kCacheLineBytes;
    std::memcpy(data + static_cast<std::size_t>(order[i]) * kCacheLineBytes, &next, sizeof next);
  }
  return data + static_cast<std::size_t>(order[0]) * kCacheLineBytes;
}

const void* chase_pointers(const void* start, std::size_t steps) {
  const void* p = start;
  for (std::size_t i = 0; i < steps; i += 16) {
#define NUMATWIN_STEP p = *static_cast<const void* const*>(p);
    NUMATWIN_STEP NUMATWIN_STEP NUMATWIN_STEP NUMATWIN_STEP NUMATWIN_STEP NUMATWIN_STEP NUMATWIN_STEP NUMATWIN_STEP
    NUMATWIN_STEP NUMATWIN_STEP NUMATWIN_STEP NUMATWIN_STEP NUMATWIN_STEP NUMATWIN_STEP NUMATWIN_STEP NUMATWIN_STEP
#undef NUMATWIN_STEP
  }
  return p;
}

}  // namespace numatwin::validate
