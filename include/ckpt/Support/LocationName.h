//===- LocationName.h - the name an op's location gives it -----------------===//
//
// ckpt-import-torch names each op's location after its torch.fx node
// (`loc("blocks_0_fc"("model.py":12:5))`); the report and the plan export
// find the node (and what PyTorch computes there) by that name.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_SUPPORT_LOCATIONNAME_H
#define CKPT_SUPPORT_LOCATIONNAME_H

#include "mlir/IR/Location.h"

#include <string>

namespace ckpt {

/// The name a location gives its op, through fused locations; "" when it
/// gives none.
inline std::string getLocationName(mlir::Location loc) {
  if (auto name = mlir::dyn_cast<mlir::NameLoc>(loc))
    return name.getName().str();
  if (auto fused = mlir::dyn_cast<mlir::FusedLoc>(loc))
    for (mlir::Location inner : fused.getLocations())
      if (std::string text = getLocationName(inner); !text.empty())
        return text;
  return "";
}

} // namespace ckpt

#endif // CKPT_SUPPORT_LOCATIONNAME_H
