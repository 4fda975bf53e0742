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
  /// One value per point, in bytes.
  llvm::SmallVector<uint64_t> bytes;
  /// The x of each point; empty: the point's index.
  llvm::SmallVector<double> x = {};
};

/// Writes a standalone SVG line chart: y is the bytes in MiB from 0 to the
/// largest value; x is the point index (each series its own length), or,
/// when the series give x values, their range with labelled ticks and a
/// dot on every point.
void writeByteChartSvg(llvm::raw_ostream &os, llvm::StringRef title,
                       llvm::StringRef xLabel,
                       llvm::ArrayRef<ChartSeries> series);

} // namespace ckpt

#endif // CKPT_ANALYSIS_SVGCHART_H
