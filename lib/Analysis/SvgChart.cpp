//===- SvgChart.cpp - line charts of byte counts as SVG -------------------===//
//
// Fixed 900x420 canvas: a plot area with five horizontal grid lines
// labelled in MiB, one polyline per series in a fixed palette, and a legend
// of the series names. Names and titles are XML-escaped.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Analysis/SvgChart.h"

#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>

using namespace ckpt;

static std::string escapeXml(llvm::StringRef text) {
  std::string escaped;
  for (char c : text) {
    switch (c) {
    case '&':
      escaped += "&amp;";
      break;
    case '<':
      escaped += "&lt;";
      break;
    case '>':
      escaped += "&gt;";
      break;
    case '"':
      escaped += "&quot;";
      break;
    default:
      escaped += c;
    }
  }
  return escaped;
}

void ckpt::writeByteChartSvg(llvm::raw_ostream &os, llvm::StringRef title,
                             llvm::StringRef xLabel,
                             llvm::ArrayRef<ChartSeries> series) {
  constexpr double width = 900, height = 420, left = 80, right = 20, top = 40,
                   bottom = 50;
  constexpr const char *palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                     "#9467bd"};
  uint64_t most = 1;
  size_t steps = 2;
  bool explicitX = false;
  double lowX = INFINITY, highX = -INFINITY;
  for (const ChartSeries &line : series) {
    for (uint64_t value : line.bytes)
      most = std::max(most, value);
    steps = std::max(steps, line.bytes.size());
    for (double value : line.x) {
      explicitX = true;
      lowX = std::min(lowX, value);
      highX = std::max(highX, value);
    }
  }
  if (explicitX && highX <= lowX)
    highX = lowX + 1;
  double plotWidth = width - left - right, plotHeight = height - top - bottom;
  auto xOf = [&](const ChartSeries &line, size_t step) {
    double fraction = line.x.empty() ? static_cast<double>(step) / (steps - 1)
                                     : (line.x[step] - lowX) / (highX - lowX);
    return left + plotWidth * fraction;
  };
  auto y = [&](uint64_t bytes) {
    return top + plotHeight * (1.0 - static_cast<double>(bytes) / most);
  };

  os << llvm::format("<svg xmlns=\"http://www.w3.org/2000/svg\" "
                     "width=\"%.0f\" height=\"%.0f\" "
                     "font-family=\"sans-serif\" font-size=\"12\">\n",
                     width, height);
  os << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  os << llvm::format("<text x=\"%.0f\" y=\"24\" font-size=\"15\">", left)
     << escapeXml(title) << "</text>\n";
  for (int tick = 0; tick <= 5; ++tick) {
    uint64_t bytes = most * tick / 5;
    double at = y(bytes);
    os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                       "y2=\"%.1f\" stroke=\"#ddd\"/>\n",
                       left, at, width - right, at);
    os << llvm::format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">"
                       "%.1f MiB</text>\n",
                       left - 6, at + 4, bytes / 1048576.0);
  }
  if (explicitX)
    for (int tick = 0; tick <= 5; ++tick) {
      double value = lowX + (highX - lowX) * tick / 5;
      os << llvm::format("<text x=\"%.1f\" y=\"%.1f\" "
                         "text-anchor=\"middle\">%.4g</text>\n",
                         left + plotWidth * tick / 5, height - bottom + 16,
                         value);
    }
  os << llvm::format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                     left + plotWidth / 2, height - 12)
     << escapeXml(xLabel) << "</text>\n";
  for (auto [index, line] : llvm::enumerate(series)) {
    const char *color = palette[index % std::size(palette)];
    os << "<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"" << color
       << "\" points=\"";
    for (auto [step, bytes] : llvm::enumerate(line.bytes))
      os << llvm::format("%.1f,%.1f ", xOf(line, step), y(bytes));
    os << "\"/>\n";
    if (!line.x.empty())
      for (auto [step, bytes] : llvm::enumerate(line.bytes))
        os << llvm::format("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" "
                           "fill=\"%s\"/>\n",
                           xOf(line, step), y(bytes), color);
    double legendY = top + 14 + 16 * index;
    os << llvm::format("<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" "
                       "height=\"3\" fill=\"%s\"/>\n",
                       width - right - 260, legendY - 4, color);
    os << llvm::format("<text x=\"%.1f\" y=\"%.1f\">", width - right - 242,
                       legendY)
       << escapeXml(line.name) << "</text>\n";
  }
  os << "</svg>\n";
}
