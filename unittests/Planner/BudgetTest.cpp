//===- BudgetTest.cpp - byte sizes by hand --------------------------------===//

#include "ckpt/Planner/Budget.h"

#include <gtest/gtest.h>

using namespace ckpt;

namespace {

uint64_t parse(llvm::StringRef text) {
  std::string error;
  std::optional<uint64_t> bytes = parseByteSize(text, error);
  EXPECT_TRUE(bytes) << text.str() << ": " << error;
  return bytes.value_or(0);
}

std::string reject(llvm::StringRef text) {
  std::string error;
  EXPECT_FALSE(parseByteSize(text, error)) << text.str();
  return error;
}

TEST(BudgetTest, UnitsAndNumbers) {
  EXPECT_EQ(parse("24GiB"), 24ull << 30);
  EXPECT_EQ(parse("512MiB"), 512ull << 20);
  EXPECT_EQ(parse("1.5e9"), 1500000000ull);
  EXPECT_EQ(parse("800MB"), 800000000ull);
  EXPECT_EQ(parse("3KB"), 3000ull);
  EXPECT_EQ(parse("1.5KiB"), 1536ull);
  EXPECT_EQ(parse("2TiB"), 2ull << 40);
  EXPECT_EQ(parse("7"), 7ull);
  EXPECT_EQ(parse("7B"), 7ull);
  EXPECT_EQ(parse(" 12 GiB "), 12ull << 30);
  // Integers are exact up to the largest 64-bit count.
  EXPECT_EQ(parse("18446744073709551615"), 18446744073709551615ull);
  // Fractions of a byte are dropped.
  EXPECT_EQ(parse("2.9"), 2ull);
}

TEST(BudgetTest, BadStringsSayWhy) {
  EXPECT_EQ(reject("lots"), "invalid byte size 'lots': expected a number "
                            "followed by an optional unit (B, KB, MB, GB, "
                            "TB, KiB, MiB, GiB, TiB), e.g. 24GiB or 1.5e9");
  EXPECT_EQ(reject("24GB/s"), "invalid byte size '24GB/s': unknown unit "
                              "'GB/s'; expected B, KB, MB, GB, TB, KiB, "
                              "MiB, GiB or TiB");
  EXPECT_EQ(reject("24gib"), "invalid byte size '24gib': unknown unit 'gib'; "
                             "expected B, KB, MB, GB, TB, KiB, MiB, GiB or "
                             "TiB");
  EXPECT_EQ(reject("0"), "invalid byte size '0': a budget must be at least 1 "
                         "byte");
  EXPECT_EQ(reject("-5MiB"), "invalid byte size '-5MiB': a budget must be at "
                             "least 1 byte");
  EXPECT_EQ(reject("0.5"), "invalid byte size '0.5': a budget must be at "
                           "least 1 byte");
  EXPECT_EQ(reject("1e30"), "invalid byte size '1e30': more than 2^64 - 1 "
                            "bytes");
  EXPECT_EQ(reject("20000000TiB"), "invalid byte size '20000000TiB': more "
                                   "than 2^64 - 1 bytes");
  EXPECT_EQ(reject("1.2.3GiB"), "invalid byte size '1.2.3GiB': '1.2.3' is "
                                "not a number");
  EXPECT_EQ(reject(""), "invalid byte size '': expected a number followed by "
                        "an optional unit (B, KB, MB, GB, TB, KiB, MiB, GiB, "
                        "TiB), e.g. 24GiB or 1.5e9");
}

} // namespace
