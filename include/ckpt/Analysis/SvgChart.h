//===- SvgChart.h - line charts of byte counts as SVG ---------------------===//
//
// A small, dependency-free SVG writer for the report's memory timelines:
// several series of byte counts over steps, with axes in MiB and a legend.
//
//===----------------------------------------------------------------------===//

#ifndef CKPT_ANALYSIS_SVGCHART_H
#define CKPT_ANALYSIS_SVGCHART_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace ckpt {

struct ChartSeries {
  std::string name;
  /// One value per step, in bytes.
  llvm::SmallVector<uint64_t> bytes;
};

/// Writes a standalone SVG line chart: x is the step index (each series its
/// own length), y the bytes in MiB from 0 to the largest value.
void writeByteChartSvg(llvm::raw_ostream &os, llvm::StringRef title,
                       llvm::StringRef xLabel,
                       llvm::ArrayRef<ChartSeries> series);

} // namespace ckpt

#endif // CKPT_ANALYSIS_SVGCHART_H
