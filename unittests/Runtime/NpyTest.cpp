//===- NpyTest.cpp - .npy round trips and malformed files -----------------===//

#include "ckpt/Runtime/Npy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

using namespace ckpt::runtime;

namespace {

std::string temporaryPath(const char *name) {
  return ::testing::TempDir() + name;
}

TEST(NpyTest, RoundTripsEveryDtype) {
  std::vector<double> f8 = {1.5, -2.25, 3e100, 0.0, 4.0, 5.0};
  std::vector<int64_t> i8 = {7, -1};
  std::vector<uint16_t> twoBytes = {0x3c00, 0xbf80, 0x7bff};
  struct Case {
    std::string dtype;
    std::vector<int64_t> shape;
    const void *data;
    size_t bytes;
  } cases[] = {{"f8", {2, 3}, f8.data(), 48},
               {"i8", {2}, i8.data(), 16},
               {"f2", {3}, twoBytes.data(), 6},
               {"u2", {3, 1}, twoBytes.data(), 6}};
  for (const Case &c : cases) {
    std::string path = temporaryPath("roundtrip.npy"), error;
    ASSERT_TRUE(writeNpy(path, c.dtype, c.shape, c.data, c.bytes, error))
        << error;
    NpyArray array;
    ASSERT_TRUE(readNpy(path, array, error)) << error;
    EXPECT_EQ(array.dtype, c.dtype);
    EXPECT_EQ(array.shape, c.shape);
    ASSERT_EQ(array.data.size(), c.bytes);
    EXPECT_EQ(std::memcmp(array.data.data(), c.data, c.bytes), 0);
  }
}

TEST(NpyTest, HeaderIsPaddedToSixtyFourBytes) {
  std::string path = temporaryPath("padded.npy"), error;
  float value = 1.0f;
  ASSERT_TRUE(writeNpy(path, "f4", {}, &value, 4, error));
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  EXPECT_EQ(static_cast<size_t>(in.tellg()) % 64, 4u);
}

TEST(NpyTest, RejectsWhatItCannotRead) {
  std::string path = temporaryPath("bad.npy"), error;
  NpyArray array;
  {
    std::ofstream out(path, std::ios::binary);
    out << "not numpy";
  }
  EXPECT_FALSE(readNpy(path, array, error));
  EXPECT_NE(error.find("is not a .npy file"), std::string::npos);

  {
    std::ofstream out(path, std::ios::binary);
    std::string header = "{'descr': '<c8', 'fortran_order': False, "
                         "'shape': (2,), }";
    out.write("\x93NUMPY\x01\x00", 8);
    char length[2] = {static_cast<char>(header.size()), 0};
    out.write(length, 2);
    out << header;
  }
  EXPECT_FALSE(readNpy(path, array, error));
  EXPECT_NE(error.find("holds dtype '<c8'"), std::string::npos);

  std::vector<int64_t> shape = {3};
  double data[3] = {1, 2, 3};
  ASSERT_TRUE(writeNpy(path, "f8", shape, data, 16, error)); // one short
  EXPECT_FALSE(readNpy(path, array, error));
  EXPECT_NE(error.find("fewer bytes than its shape needs"), std::string::npos);

  // A shape whose bytes overflow 64 bits, and one that fits but is far
  // larger than the file: errors, before anything that large is allocated.
  shape = {4294967296, 4294967296};
  ASSERT_TRUE(writeNpy(path, "f4", shape, data, 8, error));
  EXPECT_FALSE(readNpy(path, array, error));
  EXPECT_NE(error.find("whose byte size overflows 64 bits"), std::string::npos);
  shape = {1099511627776, 1024};
  ASSERT_TRUE(writeNpy(path, "f4", shape, data, 8, error));
  EXPECT_FALSE(readNpy(path, array, error));
  EXPECT_NE(error.find("fewer bytes than its shape needs"), std::string::npos);

  EXPECT_FALSE(readNpy(temporaryPath("absent.npy"), array, error));
  EXPECT_NE(error.find("cannot open"), std::string::npos);
}

} // namespace
