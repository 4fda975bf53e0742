//===- CkptInterfaces.cpp - gradient rule and cost interfaces -------------===//
//
// The generated interface definitions; the implementations live with the
// ops (CkptGradients.cpp, CkptCosts.cpp).
//
//===----------------------------------------------------------------------===//

#include "ckpt/Dialect/Ckpt/IR/CkptInterfaces.h"

#include "ckpt/Dialect/Ckpt/IR/CkptInterfaces.cpp.inc"
