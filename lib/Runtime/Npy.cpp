//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// The format: "\x93NUMPY", a version, a little-endian header length, and a
// Python dict literal with 'descr', 'fortran_order' and 'shape', padded to a
// multiple of 64 bytes; then the raw data.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Runtime/Npy.h"
#include "ckpt/Support/CheckedMath.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

using namespace ckpt::runtime;

namespace {

size_t elementBytes(const std::string &dtype) {
  if (dtype == "f2" || dtype == "u2")
    return 2;
  if (dtype == "f4")
    return 4;
  if (dtype == "f8" || dtype == "i8")
    return 8;
  if (dtype == "b1")
    return 1;
  return 0;
}

} // namespace

bool ckpt::runtime::readNpy(const std::string &path, NpyArray &array,
                            std::string &error) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    error = "cannot open '" + path + "'";
    return false;
  }
  // Lengths in the file are checked against its size before anything that
  // large is allocated.
  uint64_t fileBytes = static_cast<uint64_t>(in.tellg());
  in.seekg(0);
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) {
    error = "'" + path + "' is not a .npy file";
    return false;
  }
  uint32_t length = 0;
  unsigned char bytes[4] = {0, 0, 0, 0};
  int lengthBytes = magic[6] == 1 ? 2 : 4;
  if (!in.read(reinterpret_cast<char *>(bytes), lengthBytes)) {
    error = "'" + path + "' ends inside its header";
    return false;
  }
  for (int i = lengthBytes - 1; i >= 0; --i)
    length = length << 8 | bytes[i];
  if (length > fileBytes) {
    error = "'" + path + "' ends inside its header";
    return false;
  }
  std::string header(length, '\0');
  if (!in.read(header.data(), length)) {
    error = "'" + path + "' ends inside its header";
    return false;
  }
  std::smatch descr, order, shape;
  if (!std::regex_search(header, descr,
                         std::regex("'descr'\\s*:\\s*'([<>|=])([a-z]\\d+)'")) ||
      !std::regex_search(header, order,
                         std::regex("'fortran_order'\\s*:\\s*(True|False)")) ||
      !std::regex_search(header, shape,
                         std::regex("'shape'\\s*:\\s*\\(([^)]*)\\)"))) {
    error = "'" + path + "' has a malformed header: " + header;
    return false;
  }
  array.dtype = descr[2];
  if (descr[1] == ">" || elementBytes(array.dtype) == 0) {
    error = "'" + path + "' holds dtype '" + descr[1].str() + array.dtype +
            "'; supported: <f2, <f4, <f8, <i8, |b1, and <u2 (bf16 bits)";
    return false;
  }
  if (order[1] == "True") {
    error = "'" + path + "' is in Fortran order; write it in C order";
    return false;
  }
  array.shape.clear();
  std::stringstream dims(shape[1].str());
  std::string dim;
  while (std::getline(dims, dim, ',')) {
    if (dim.find_first_not_of(" ") == std::string::npos)
      continue;
    char *end = nullptr;
    errno = 0;
    long long size = std::strtoll(dim.c_str(), &end, 10);
    if (size < 0 || errno == ERANGE || end == dim.c_str() ||
        std::string(end).find_first_not_of(" ") != std::string::npos) {
      error = "'" + path + "' has a malformed shape: (" + shape[1].str() + ")";
      return false;
    }
    array.shape.push_back(size);
  }
  std::optional<uint64_t> dataBytes =
      checkedProduct(array.shape, elementBytes(array.dtype));
  if (!dataBytes) {
    error = "'" + path + "' has shape (" + shape[1].str() +
            ") whose byte size overflows 64 bits";
    return false;
  }
  if (*dataBytes <= fileBytes - static_cast<uint64_t>(in.tellg())) {
    array.data.resize(*dataBytes);
    if (in.read(array.data.data(), array.data.size()))
      return true;
  }
  error = "'" + path + "' holds fewer bytes than its shape needs";
  return false;
}

bool ckpt::runtime::writeNpy(const std::string &path, const std::string &dtype,
                             const std::vector<int64_t> &shape,
                             const void *data, size_t bytes,
                             std::string &error) {
  std::string header = "{'descr': '" +
                       std::string(dtype == "b1" ? "|" : "<") + dtype +
                       "', 'fortran_order': False, 'shape': (";
  for (int64_t size : shape)
    header += std::to_string(size) + ", ";
  header += "), }";
  // Magic (6), version (2), length (2), header and '\n' fill 64-byte lines.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    error = "cannot write '" + path + "'";
    return false;
  }
  out.write("\x93NUMPY\x01\x00", 8);
  char length[2] = {static_cast<char>(header.size() & 0xff),
                    static_cast<char>(header.size() >> 8)};
  out.write(length, 2);
  out << header;
  out.write(static_cast<const char *>(data), bytes);
  if (!out) {
    error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}
