#include "numatwin/validate/kernels/allocator.hpp"
#include "numatwin/validate/alloc/allocator_bench.hpp"

#include <gtest/gtest.h>

#include <string>

namespace numatwin::validate {
namespace {

TEST(AllocatorTest, KnowsTheFourAllocatorsAndRejectsOthersByName) {
  EXPECT_EQ(allocator_by_name("glibc").library, "");
  EXPECT_EQ(allocator_by_name("jemalloc").library, "libjemalloc.so.2");
  EXPECT_EQ(allocator_by_name("tcmalloc").name, "tcmalloc");
  EXPECT_EQ(allocator_by_name("tbbmalloc").name, "tbbmalloc");
  try {
    (void)allocator_by_name("hoard");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("\"hoard\""), std::string::npos) << message;
    EXPECT_NE(message.find("jemalloc"), std::string::npos) << message;
  }
}

TEST(AllocatorTest, AMissingLibraryIsAnErrorNamingItsPackage) {
  AllocatorInfo fake{"nonesuch", "libnonesuch_malloc.so.9", "libnonesuch9", "libnonesuch"};
  EXPECT_FALSE(find_allocator_library(fake).has_value());
  try {
    (void)require_allocator_library(fake);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    // A sanitizer build refuses every preload first; otherwise the library and package are named.
    if (!built_with_address_sanitizer()) {
      EXPECT_NE(message.find("libnonesuch_malloc.so.9"), std::string::npos) << message;
      EXPECT_NE(message.find("libnonesuch9"), std::string::npos) << message;
    } else {
      EXPECT_NE(message.find("AddressSanitizer"), std::string::npos) << message;
    }
  }
}

TEST(AllocatorTest, GlibcNeedsNoLibraryAndIsWhatATestBinaryRunsWith) {
  EXPECT_EQ(require_allocator_library(allocator_by_name("glibc")), "");
  EXPECT_EQ(active_allocator(), built_with_address_sanitizer() ? "asan" : "glibc");
}

TEST(AllocatorBenchTest, ReadersReadExactlyWhatWritersWroteAcrossThreads) {
  AllocatorBenchOptions o;
  o.threads = 2;
  o.bytes_per_thread = 4.0 * 1024 * 1024;
  o.max_object_bytes = 64 * 1024;
  o.rounds = 2;
  const AllocatorBenchResult r = run_allocator_bench(o);
  EXPECT_TRUE(r.verified);
  EXPECT_GT(r.checksum, 0U);
  EXPECT_DOUBLE_EQ(r.requested_peak_bytes, 8.0 * 1024 * 1024);
  // Size classes weighted 1/size: most objects are small, so there are far more objects than
  // bytes / largest size (64 per round and thread).
  EXPECT_GT(r.objects, 2 * 2 * 64 * 20.0);
  EXPECT_GT(r.alloc_write_seconds, 0.0);
  EXPECT_GT(r.read_free_seconds, 0.0);
  const AllocatorBenchResult back = allocator_bench_from_json(to_json(r));
  EXPECT_EQ(back.checksum, r.checksum);
  EXPECT_EQ(back.allocator, r.allocator);
}

TEST(AllocatorBenchTest, BadOptionsAreRejected) {
  AllocatorBenchOptions o;
  o.threads = 0;
  EXPECT_THROW(run_allocator_bench(o), std::invalid_argument);
  o = {};
  o.rounds = 0;
  EXPECT_THROW(run_allocator_bench(o), std::invalid_argument);
  o = {};
  o.bytes_per_thread = 1000;
  EXPECT_THROW(run_allocator_bench(o), std::invalid_argument);
  o = {};
  o.min_object_bytes = 4096;
  o.max_object_bytes = 64;
  EXPECT_THROW(run_allocator_bench(o), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::validate
