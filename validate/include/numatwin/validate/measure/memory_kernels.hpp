// The timed inner loops of `validate measure`: streaming read, write and copy over a buffer,
// reads paced by an injection delay, and a dependent pointer chase over a random cyclic
// permutation of cache lines. Compiled optimised and without sanitizers in every build.
#pragma once

#include <cstddef>
#include <cstdint>

namespace numatwin::validate {

inline constexpr std::size_t kCacheLineBytes = 64;

// Reads every byte of [data, data + bytes) (bytes a multiple of 64); returns a checksum so
// the loads cannot be optimised away.
std::uint64_t read_stream(const std::byte* data, std::size_t bytes);
// Stores `value` over the whole buffer with ordinary (write-allocate) stores.
void write_stream(std::byte* data, std::size_t bytes, std::uint64_t value);
// dst[i] = src[i] over `bytes`.
void copy_stream(std::byte* dst, const std::byte* src, std::size_t bytes);
// Reads one word per cache line, then spins `delay` empty iterations: mlc's injection delay.
std::uint64_t read_stream_delayed(const std::byte* data, std::size_t bytes, int delay);

// Links the `lines` cache lines of `data` into one random cycle (Sattolo's algorithm, seeded):
// the first word of each line holds the address of the next. Returns the start.
const void* build_pointer_chase(std::byte* data, std::size_t lines, std::uint64_t seed);
// Follows `steps` pointers from `start` (steps a multiple of 16); returns where it stopped.
const void* chase_pointers(const void* start, std::size_t steps);

}  // namespace numatwin::validate
