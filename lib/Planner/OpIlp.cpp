//===- OpIlp.cpp - op-level plans on the fixed schedule, exactly ---------===//
//
// The program: a binary drop[c] per candidate, and early[c,s] per earlier
// site s it may come back at instead of its first reader's; per potential
// site s (a backward op some candidate is first read by) and op o that a
// region there may clone, rc[o,s] (o runs in the region); ext[b,s] (a
// buffer read by the region at s lives on to it); live[v,o,s] (a value the
// region makes is live while its op o runs). Given the binaries, the
// others are forced to their least values. Memory rows take the unplanned
// timeline and change it by exactly what the plan changes.
//
//===----------------------------------------------------------------------===//

#include "ckpt/Planner/OpIlp.h"

#include "ckpt/Analysis/SavedTensors.h"
#include "ckpt/Dialect/Ckpt/IR/CkptOps.h"
#include "ckpt/Dialect/Ckpt/IR/Recomputability.h"
#include "ckpt/Dialect/Ckpt/IR/TensorSize.h"
#include "ckpt/Planner/Segments.h"

#include "CbcSolve.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <chrono>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <set>

using namespace mlir;
using namespace ckpt;

struct OpPlanSpace::Model {
  /// The step's top-level ops, without the terminator.
  SmallVector<Operation *> ops;
  DenseMap<Operation *, int> position;
  /// The unplanned simulation: point i + 1 is op i running.
  SmallVector<int64_t> timeline;
  /// Its activation bytes when backward starts (before op `forwardEnd`,
  /// the first backward op): what each other microbatch in flight holds.
  int64_t activationBytesAtBackward = 0;
  int forwardEnd = 0;
  /// Per op: bytes its results allocate, its scratch bytes, its FLOPs, and
  /// whether it is a forward op that may be recomputed.
  SmallVector<int64_t> allocated, scratch;
  SmallVector<uint64_t> flops;
  SmallVector<bool> recomputable;
  /// Each value's buffer (views resolve to what they view) and each
  /// buffer's bytes and last reader (ops.size(): returned).
  DenseMap<Value, Value> bufferOf;
  DenseMap<Value, int64_t> bufferBytes;
  DenseMap<Value, int> lastUse;
  /// Values backward ops read.
  llvm::DenseSet<Value> readByBackward;
  /// The candidate a value is a member of.
  DenseMap<Value, int> candidateOf;
  /// Per candidate: its last forward reader (or its definition) and its
  /// first backward reader.
  SmallVector<int> lastForward, firstReader;
  /// Potential sites (the candidates' first readers), ascending, and the
  /// ops a region at each may clone, ascending.
  SmallVector<int> sitePositions;
  std::vector<SmallVector<int>> reach;

  int end() const { return static_cast<int>(ops.size()); }
  Value buffer(Value value) const { return bufferOf.lookup(value); }
  /// The top-level op making `value`, or -1 for an argument.
  int producer(Value value) const {
    Operation *op = value.getDefiningOp();
    return op ? position.lookup(op) : -1;
  }
  /// A value the plan drops however it decides: made by an op that may be
  /// recomputed, read by no backward op directly, not returned.
  bool isIntermediate(Value value) const {
    int at = producer(value);
    return at >= 0 && recomputable[at] && !candidateOf.contains(value) &&
           lastUse.lookup(buffer(value)) != end();
  }
};

OpPlanSpace::~OpPlanSpace() = default;

/// The most ops one region may clone: regions reach back through dropped
/// values, and without a bound every region's program would span the
/// step.
constexpr size_t kMaxRegionOps = 96;

/// The most earlier sites a candidate may come back at besides its first
/// reader's: the nearest ones whose regions may clone it (each is a binary
/// of the program).
constexpr size_t kMaxEarlierSites = 2;

/// Calls `each` with every operand of `op` and of the ops nested in it
/// that is defined outside it.
static void forEachInput(Operation *op, function_ref<void(Value)> each) {
  op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      if (!op->isAncestor(operand.getParentBlock()->getParentOp()))
        each(operand);
  });
}

FailureOr<std::unique_ptr<OpPlanSpace>> OpPlanSpace::build(func::FuncOp step) {
  if (failed(verifyNotMaterialized(step)))
    return failure();
  FailureOr<MemoryPeak> none = simulateMemory(step, /*liveAtPeak=*/false);
  if (failed(none))
    return failure();
  std::unique_ptr<OpPlanSpace> space(new OpPlanSpace);
  space->step = step;
  space->model = std::make_unique<Model>();
  Model &model = *space->model;
  Block &entry = step.getBody().front();
  for (Operation &op : entry.without_terminator()) {
    model.position[&op] = model.ops.size();
    model.ops.push_back(&op);
  }
  for (uint64_t bytes : none->timeline)
    model.timeline.push_back(static_cast<int64_t>(
        std::min<uint64_t>(bytes, std::numeric_limits<int64_t>::max())));
  model.activationBytesAtBackward = static_cast<int64_t>(std::min<uint64_t>(
      none->activationBytesAtBackward, std::numeric_limits<int64_t>::max()));
  model.forwardEnd = llvm::find_if(model.ops, isBackwardOp) - model.ops.begin();

  for (BlockArgument arg : entry.getArguments()) {
    model.bufferOf[arg] = arg;
    FailureOr<uint64_t> bytes = getValueBytes(arg, step);
    if (failed(bytes))
      return failure();
    model.bufferBytes[arg] = static_cast<int64_t>(*bytes);
  }
  // Plain loop variables where lambdas capture them.
  for (int index = 0, end = model.end(); index < end; ++index) {
    Operation *op = model.ops[index];
    bool backward = isBackwardOp(op);
    model.recomputable.push_back(!backward && whyNotRecomputable(op).empty());
    auto costed = dyn_cast<CostOpInterface>(op);
    model.flops.push_back(costed ? costed.getFlops() : 0);
    model.scratch.push_back(
        costed ? static_cast<int64_t>(costed.getScratchBytes()) : 0);
    int64_t allocated = 0;
    for (Value result : op->getResults()) {
      if (auto reshape = dyn_cast<ReshapeOp>(op)) {
        model.bufferOf[result] = model.buffer(reshape.getInput());
        continue;
      }
      model.bufferOf[result] = result;
      FailureOr<uint64_t> bytes = getValueBytes(result, op);
      if (failed(bytes))
        return failure();
      int64_t heap = isa<arith::ConstantOp>(op) ? 0 : int64_t(*bytes);
      model.bufferBytes[result] = heap;
      allocated += heap;
    }
    model.allocated.push_back(allocated);
    forEachInput(op, [&](Value operand) {
      model.lastUse[model.buffer(operand)] = index;
      if (backward)
        model.readByBackward.insert(operand);
    });
  }
  for (Value value : entry.getTerminator()->getOperands())
    model.lastUse[model.buffer(value)] = model.end();

  // Candidates: buffers made by forward ops that may be recomputed, read by
  // backward (through a view or not), not returned, taking bytes.
  llvm::MapVector<Value, SmallVector<Value, 1>> members;
  for (auto [index, op] : llvm::enumerate(model.ops)) {
    if (!model.recomputable[index])
      continue;
    for (Value result : op->getResults()) {
      Value buffer = model.buffer(result);
      if (isa<BlockArgument>(buffer) || model.bufferBytes.lookup(buffer) == 0 ||
          model.lastUse.lookup(buffer) == model.end() ||
          !model.recomputable[model.producer(buffer)])
        continue;
      members[buffer].push_back(result);
    }
  }
  for (auto &[buffer, values] : members) {
    if (llvm::none_of(values, [&](Value value) {
          return model.readByBackward.contains(value);
        }))
      continue;
    int index = space->candidates.size();
    int lastForward = model.producer(buffer), firstReader = model.end();
    for (Value value : values) {
      model.candidateOf[value] = index;
      for (Operation *user : value.getUsers()) {
        Operation *top = entry.findAncestorOpInBlock(*user);
        int at = model.position.lookup(top);
        if (isBackwardOp(top))
          firstReader = std::min(firstReader, at);
        else
          lastForward = std::max(lastForward, at);
      }
    }
    model.lastForward.push_back(lastForward);
    model.firstReader.push_back(firstReader);
    space->candidates.push_back(
        {values, static_cast<uint64_t>(model.bufferBytes.lookup(buffer))});
  }

  // Each potential site's reach: what its values depend on through ops that
  // may be recomputed, nearest first, up to kMaxRegionOps (its values' own
  // ops always).
  std::map<int, SmallVector<int>> listedAt;
  for (auto [c, candidate] : llvm::enumerate(space->candidates))
    listedAt[model.firstReader[c]].push_back(static_cast<int>(c));
  auto listedProducers = [&](const Candidate &candidate) {
    SmallVector<int, 1> producers;
    for (Value member : candidate.members)
      if (model.readByBackward.contains(member))
        producers.push_back(model.producer(member));
    return producers;
  };
  for (auto &[at, listed] : listedAt) {
    model.sitePositions.push_back(at);
    std::set<int> ops;
    std::deque<int> worklist;
    auto add = [&](int op, bool root) {
      if (op >= 0 && model.recomputable[op] && !ops.count(op) &&
          (root || ops.size() < kMaxRegionOps)) {
        ops.insert(op);
        worklist.push_back(op);
      }
    };
    for (int c : listed)
      for (int op : listedProducers(space->candidates[c]))
        add(op, /*root=*/true);
    while (!worklist.empty()) {
      int op = worklist.front();
      worklist.pop_front();
      forEachInput(model.ops[op], [&](Value input) {
        add(model.producer(input), /*root=*/false);
      });
    }
    model.reach.emplace_back(ops.begin(), ops.end());
  }
  // Each candidate's sites: the nearest earlier ones whose regions may
  // clone all it brings back, then its first reader's.
  for (size_t c = 0; c < space->candidates.size(); ++c) {
    Candidate &candidate = space->candidates[c];
    SmallVector<int, 1> producers = listedProducers(candidate);
    for (size_t site = model.sitePositions.size(); site-- > 0;) {
      int at = model.sitePositions[site];
      if (at >= model.firstReader[c])
        continue;
      if (candidate.sites.size() == kMaxEarlierSites)
        break;
      ArrayRef<int> ops = model.reach[site];
      if (llvm::all_of(producers, [&](int op) {
            return std::binary_search(ops.begin(), ops.end(), op);
          }))
        candidate.sites.push_back(at);
    }
    std::reverse(candidate.sites.begin(), candidate.sites.end());
    candidate.sites.push_back(model.firstReader[c]);
  }
  return space;
}

OpPlan OpPlanSpace::getPlan(const Choice &choice) const {
  const Model &m = *model;
  OpPlan plan;
  std::map<int, unsigned> siteAt;
  for (int at : choice)
    if (at >= 0)
      siteAt[at];
  for (auto &[at, site] : siteAt) {
    site = plan.sites.size();
    plan.sites.push_back({m.ops[at], m.ops[at]->getLoc()});
  }
  SmallVector<bool> located(plan.sites.size(), false);
  for (auto [at, op] : llvm::enumerate(m.ops)) {
    if (!m.recomputable[at])
      continue;
    for (Value result : op->getResults()) {
      auto candidate = m.candidateOf.find(result);
      if (candidate == m.candidateOf.end()) {
        if (m.isIntermediate(result))
          plan.dropped[result];
        continue;
      }
      int comesBackAt = choice[candidate->second];
      if (comesBackAt < 0)
        continue;
      SmallVector<unsigned, 1> &sites = plan.dropped[result];
      if (!m.readByBackward.contains(result))
        continue;
      unsigned site = siteAt.at(comesBackAt);
      sites.push_back(site);
      // A region is named after the first value it brings back.
      if (!located[site]) {
        plan.sites[site].loc = op->getLoc();
        located[site] = true;
      }
    }
  }
  return plan;
}

namespace {

/// Memory rows count MiB, not bytes: a power of two, so every byte count
/// stays exact, and the solver's tolerances meet coefficients near one.
double inUnits(int64_t bytes) { return std::ldexp(double(bytes), -20); }
double inUnits(uint64_t bytes) { return std::ldexp(double(bytes), -20); }

/// The program of a plan space, built once; solves add the cuts so far.
class OpProgram {
public:
  /// With `microbatches` in flight, each memory row also counts the others'
  /// activations at backward's start, N - 1 times.
  OpProgram(const OpPlanSpace &space, unsigned microbatches);

  /// Minimises recompute FLOPs within `budget`, or, without one, the peak.
  struct Outcome {
    std::optional<OpPlanSpace::Choice> choice;
    bool proven = false;
    double bound = 0;
  };
  Outcome solve(std::optional<int64_t> budget, double seconds, int64_t nodes,
                std::optional<OpIlpWorth> worth,
                const std::optional<OpPlanSpace::Choice> &start) const;

  void cut(const OpPlanSpace::Choice &choice) { cuts.push_back(choice); }

  /// The bound the program's linear relaxation puts on the FLOPs of any
  /// plan within `budget`.
  double relaxationBound(int64_t budget) const;

private:
  using Term = std::pair<int, double>;
  /// A memory row: the constant part, and bytes per column.
  struct MemoryRow {
    double constant;
    SmallVector<Term> terms;
  };
  /// A row `sum (sense) rhs` among the columns.
  struct Row {
    SmallVector<Term> terms;
    char sense;
    double rhs;
  };
  struct Column {
    bool integer;
    double objective, lower, upper;
  };
  /// A candidate coming back at an earlier site: its column.
  struct Early {
    int site, at, column;
  };

  int addColumn(bool integer, double objective, double lower = 0,
                double upper = 1) {
    columns.push_back({integer, objective, lower, upper});
    return static_cast<int>(columns.size()) - 1;
  }
  /// sum >= rhs.
  void atLeast(SmallVector<Term> terms, double rhs) {
    rows.push_back({std::move(terms), 'G', rhs});
  }
  /// The binaries' values that stand for `choice`: drop[c] (column c) and
  /// early[c, s].
  std::vector<std::pair<int, double>>
  getBinaries(const OpPlanSpace::Choice &choice) const;

  size_t candidateCount;
  SmallVector<int> firstReader;
  /// Per candidate, its earlier sites' columns.
  std::vector<SmallVector<Early, 2>> early;
  std::vector<Column> columns;
  std::vector<MemoryRow> memory;
  /// With microbatches in flight, what the others hold, added to the peak.
  std::optional<MemoryRow> othersHeld;
  std::vector<Row> rows;
  std::vector<OpPlanSpace::Choice> cuts;
};

OpProgram::OpProgram(const OpPlanSpace &space, unsigned microbatches) {
  const OpPlanSpace::Model &m = space.getModel();
  ArrayRef<OpPlanSpace::Candidate> candidates = space.getCandidates();
  candidateCount = candidates.size();
  firstReader = m.firstReader;
  for (size_t c = 0; c < candidateCount; ++c)
    addColumn(/*integer=*/true, 0);
  DenseMap<int, int> siteOf;
  for (auto [site, at] : llvm::enumerate(m.sitePositions))
    siteOf[at] = static_cast<int>(site);
  // Per site, the candidates whose first reader it is and those that may
  // come back there earlier.
  std::vector<SmallVector<int>> listedAt(m.sitePositions.size());
  std::vector<SmallVector<std::pair<int, int>>> earlyAt(m.sitePositions.size());
  early.resize(candidateCount);
  for (size_t c = 0; c < candidateCount; ++c) {
    listedAt[siteOf.at(m.firstReader[c])].push_back(static_cast<int>(c));
    SmallVector<Term> choices = {{int(c), 1}};
    for (int at : ArrayRef<int>(candidates[c].sites).drop_back()) {
      int site = siteOf.at(at);
      int column = addColumn(/*integer=*/true, 0);
      early[c].push_back({site, at, column});
      earlyAt[site].push_back({static_cast<int>(c), column});
      choices.push_back({column, -1});
    }
    // At most one earlier site, and only when dropped.
    if (choices.size() > 1)
      atLeast(std::move(choices), 0);
  }
  // drop[c] less its earlier sites: it comes back at its first reader.
  auto atFirstReader = [&](int c, double sign) {
    SmallVector<Term> terms = {{c, sign}};
    for (const Early &earlier : early[c])
      terms.push_back({earlier.column, -sign});
    return terms;
  };
  // The earlier-site columns of `c` at or before the region at `at`: with
  // one of them set, the region reads c's copy.
  auto backBy = [&](int c, int at) {
    SmallVector<Term> terms;
    for (const Early &earlier : early[c])
      if (earlier.at <= at)
        terms.push_back({earlier.column, 1});
    return terms;
  };
  auto listedProducers = [&](int c) {
    SmallVector<int, 1> producers;
    for (Value member : candidates[c].members)
      if (m.readByBackward.contains(member))
        producers.push_back(m.producer(member));
    return producers;
  };

  // ext[buffer, site]: columns, the sites they reach, and the conditions
  // under which the region's cloned ops read the buffer (each a row
  // `ext + rest >= rhs`). ext[b, s] is set when a region at s or later
  // reads b, so the buffer is held over the span from the previous site
  // that reads it (or its last use) by that span's column alone.
  DenseMap<std::pair<Value, int>, int> extColumn;
  struct Read {
    int op;
    SmallVector<Term> rest;
    double rhs;
  };
  struct Extension {
    Value buffer;
    int site;
    int column;
    SmallVector<Read> reads;
    /// The extensions of the same buffer to the sites before and after
    /// this one that read it.
    std::optional<size_t> previous, next;
  };
  std::vector<Extension> extensions;
  auto readsBuffer = [&](Value buffer, int site, int op, SmallVector<Term> rest,
                         double rhs) {
    auto [it, inserted] = extColumn.try_emplace({buffer, site}, 0);
    if (inserted) {
      it->second = static_cast<int>(extensions.size());
      extensions.push_back({buffer, site, addColumn(false, 0), {}, {}, {}});
    }
    Extension &extension = extensions[it->second];
    SmallVector<Term> terms = {{extension.column, 1}};
    llvm::append_range(terms, rest);
    atLeast(std::move(terms), rhs);
    extension.reads.push_back({op, std::move(rest), rhs});
  };

  struct Region {
    int at;
    /// rc columns of the ops it may clone, by position.
    std::map<int, int> rc;
  };
  std::vector<Region> regions;
  for (auto [site, at] : llvm::enumerate(m.sitePositions)) {
    Region &region = regions.emplace_back();
    region.at = at;
    for (int op : m.reach[site])
      region.rc[op] = addColumn(false, double(m.flops[op]));
  }

  for (int site = 0, end = regions.size(); site < end; ++site) {
    Region &region = regions[site];
    // Values come back here when dropped and not brought back earlier, or
    // when brought back early here.
    for (int c : listedAt[site])
      for (int op : listedProducers(c)) {
        SmallVector<Term> terms = atFirstReader(c, -1);
        terms.push_back({region.rc.at(op), 1});
        atLeast(std::move(terms), 0);
      }
    for (auto [c, column] : earlyAt[site])
      for (int op : listedProducers(c))
        atLeast({{region.rc.at(op), 1}, {column, -1}}, 0);
    // Each cloned op's inputs: cloned too, or read where they are.
    for (auto &cloned : region.rc) {
      int column = cloned.second;
      forEachInput(m.ops[cloned.first], [&](Value input) {
        int producer = m.producer(input);
        if (producer < 0)
          return;
        Value buffer = m.buffer(input);
        bool shortLived = m.lastUse.lookup(buffer) < region.at &&
                          m.bufferBytes.lookup(buffer) > 0;
        auto candidate = m.candidateOf.find(input);
        if (!m.recomputable[producer] ||
            (candidate == m.candidateOf.end() && !m.isIntermediate(input))) {
          if (shortLived)
            readsBuffer(buffer, site, cloned.first, {{column, -1}}, 0);
          return;
        }
        // An input the region would clone beyond its reach may not be
        // needed: then the op is not cloned, or the candidate not dropped.
        auto producerColumn = region.rc.find(producer);
        if (candidate == m.candidateOf.end()) {
          if (producerColumn == region.rc.end())
            atLeast({{column, -1}}, 0);
          else
            atLeast({{producerColumn->second, 1}, {column, -1}}, 0);
          return;
        }
        int c = candidate->second;
        bool listed = m.readByBackward.contains(input);
        if (listed && m.firstReader[c] == region.at)
          return;
        if (listed && m.firstReader[c] < region.at) {
          if (shortLived)
            readsBuffer(buffer, site, cloned.first, {{column, -1}}, 0);
          return;
        }
        // Dropped and not brought back by now: cloned here. (A value
        // brought back at this site is made here anyway.)
        SmallVector<Term> terms = {{column, -1}, {c, -1}};
        if (listed)
          llvm::append_range(terms, backBy(c, region.at));
        if (producerColumn != region.rc.end())
          terms.push_back({producerColumn->second, 1});
        atLeast(std::move(terms), -1);
        if (shortLived)
          readsBuffer(buffer, site, cloned.first, {{column, -1}, {c, 1}}, 0);
      });
    }
  }

  // Sites come in ascending order: link each buffer's extensions, a later
  // one's read holding the buffer through the earlier ones.
  DenseMap<Value, size_t> latestExtension;
  for (size_t index = 0; index < extensions.size(); ++index) {
    auto [it, inserted] =
        latestExtension.try_emplace(extensions[index].buffer, index);
    if (inserted)
      continue;
    Extension &previous = extensions[it->second];
    previous.next = index;
    extensions[index].previous = it->second;
    atLeast({{previous.column, 1}, {extensions[index].column, -1}}, 0);
    it->second = index;
  }

  // What the plan changes at each point of the step's timeline, a column
  // per point defined by its change from the point before: drop[c] frees
  // its bytes after its last forward reader up to its first backward one,
  // early[c, s] holds them again from s on; ext[b, s] holds b from after
  // its last use (or the region of its previous extension) up to the
  // region at s.
  SmallVector<SmallVector<Term>> changeAt(m.end() + 1);
  auto during = [&](int first, int end, Term term) {
    if (first >= end)
      return;
    changeAt[first].push_back(term);
    changeAt[end].push_back({term.first, -term.second});
  };
  for (size_t c = 0; c < candidateCount; ++c) {
    double bytes = inUnits(candidates[c].bytes);
    during(m.lastForward[c] + 1, m.firstReader[c], {int(c), -bytes});
    for (const Early &earlier : early[c])
      during(earlier.at, m.firstReader[c], {earlier.column, bytes});
  }
  for (const Extension &extension : extensions)
    during(extension.previous ? regions[extensions[*extension.previous].site].at
                              : m.lastUse.lookup(extension.buffer) + 1,
           regions[extension.site].at,
           {extension.column, inUnits(m.bufferBytes.lookup(extension.buffer))});
  const double infinity = std::numeric_limits<double>::max();
  // The activations a microbatch holds when backward starts: the
  // unplanned ones less the dropped candidates (freed after their last
  // forward reader) plus the buffers held to a region from forward; each
  // other microbatch in flight holds them.
  if (microbatches > 1) {
    double others = microbatches - 1;
    othersHeld.emplace();
    othersHeld->constant = others * inUnits(m.activationBytesAtBackward);
    for (size_t c = 0; c < candidateCount; ++c)
      othersHeld->terms.push_back(
          {int(c), -others * inUnits(candidates[c].bytes)});
    for (const Extension &extension : extensions)
      if (!extension.previous &&
          m.lastUse.lookup(extension.buffer) < m.forwardEnd)
        othersHeld->terms.push_back(
            {extension.column,
             others * inUnits(m.bufferBytes.lookup(extension.buffer))});
  }
  SmallVector<int> planned;
  for (int at = 0; at < m.end(); ++at) {
    int column = addColumn(false, 0, -infinity, infinity);
    SmallVector<Term> terms = {{column, 1}};
    if (at > 0)
      terms.push_back({planned.back(), -1});
    for (auto [changed, bytes] : changeAt[at])
      terms.push_back({changed, -bytes});
    rows.push_back({std::move(terms), 'E', 0});
    planned.push_back(column);
    memory.push_back({inUnits(m.timeline[at + 1]), {{column, 1}}});
  }
  // In a region, while its cloned op `op` runs, also the buffers of the
  // values it brings back (which it remakes), and each buffer held to it
  // while a cloned op from `op` on reads it or a later region does (the
  // latter already in the timeline).
  auto planTerms = [&](MemoryRow &row, int site, int op) {
    int at = regions[site].at;
    row.terms.push_back({planned[at], 1});
    for (int c : listedAt[site])
      if (m.lastForward[c] < at)
        for (Term term : atFirstReader(c, -inUnits(candidates[c].bytes)))
          row.terms.push_back(term);
    for (auto [c, column] : earlyAt[site])
      row.terms.push_back({column, -inUnits(candidates[c].bytes)});
    for (const Extension &extension : extensions) {
      if (extension.site != site ||
          llvm::none_of(extension.reads,
                        [&](const Read &read) { return read.op >= op; }))
        continue;
      double bytes = inUnits(m.bufferBytes.lookup(extension.buffer));
      int live = addColumn(false, 0);
      row.terms.push_back({live, bytes});
      for (const Read &read : extension.reads) {
        if (read.op < op)
          continue;
        SmallVector<Term> terms = {{live, 1}};
        llvm::append_range(terms, read.rest);
        atLeast(std::move(terms), read.rhs);
      }
      if (extension.next) {
        int later = extensions[*extension.next].column;
        atLeast({{live, 1}, {later, -1}}, 0);
        row.terms.push_back({later, -bytes});
      }
    }
  };
  for (int site = 0, end = regions.size(); site < end; ++site) {
    const Region &region = regions[site];
    double before = inUnits(m.timeline[region.at + 1] - m.allocated[region.at] -
                            m.scratch[region.at]);
    // Each value a cloned op makes, with the cloned ops reading it (or a
    // view of it), and whether it comes back here (then live to the end):
    // live at least `listedBy`.
    struct Made {
      Value value;
      int op;
      int64_t bytes;
      SmallVector<Term> listedBy;
      SmallVector<int> readers;
    };
    std::vector<Made> made;
    DenseMap<Value, size_t> madeIndex;
    for (auto &[op, column] : region.rc)
      for (Value result : m.ops[op]->getResults()) {
        Value buffer = m.buffer(result);
        if (buffer != result) {
          // A view of a buffer made here keeps it live; of one from
          // outside, it is the extension's business.
          if (auto it = madeIndex.find(buffer); it != madeIndex.end())
            madeIndex[result] = it->second;
          continue;
        }
        madeIndex[result] = made.size();
        Made &value = made.emplace_back();
        value.value = result;
        value.op = op;
        value.bytes = m.bufferBytes.lookup(result);
      }
    for (auto &cloned : region.rc) {
      int op = cloned.first;
      forEachInput(m.ops[op], [&](Value input) {
        auto it = madeIndex.find(input);
        if (it != madeIndex.end() && made[it->second].op < op)
          made[it->second].readers.push_back(op);
      });
    }
    // A candidate coming back here keeps its buffer (through the view it
    // brings back, too).
    auto bringsBack = [&](int c, SmallVector<Term> listedBy) {
      for (Value member : candidates[c].members)
        if (auto it = madeIndex.find(member); it != madeIndex.end())
          made[it->second].listedBy = listedBy;
    };
    for (int c : listedAt[site])
      bringsBack(c, atFirstReader(c, 1));
    for (auto [c, column] : earlyAt[site])
      bringsBack(c, {{column, 1}});

    for (auto &cloned : region.rc) {
      int op = cloned.first, column = cloned.second;
      MemoryRow &row = memory.emplace_back();
      row.constant = before;
      planTerms(row, site, op);
      row.terms.push_back({column, inUnits(m.allocated[op] + m.scratch[op])});
      for (const Made &value : made) {
        if (value.op >= op || value.bytes == 0)
          continue;
        bool readLater = llvm::any_of(value.readers,
                                      [&](int reader) { return reader >= op; });
        if (!readLater) {
          // Brought back here: live to the region's end exactly when it
          // comes back here.
          for (auto [listedColumn, sign] : value.listedBy)
            row.terms.push_back({listedColumn, sign * inUnits(value.bytes)});
          continue;
        }
        int live = addColumn(false, 0);
        row.terms.push_back({live, inUnits(value.bytes)});
        int producerColumn = region.rc.at(value.op);
        for (int reader : value.readers)
          if (reader >= op)
            atLeast(
                {{live, 1}, {region.rc.at(reader), -1}, {producerColumn, -1}},
                -1);
        if (!value.listedBy.empty()) {
          SmallVector<Term> terms = {{live, 1}};
          for (auto [listedColumn, sign] : value.listedBy)
            terms.push_back({listedColumn, -sign});
          atLeast(std::move(terms), 0);
        }
      }
    }
  }
}

std::vector<std::pair<int, double>>
OpProgram::getBinaries(const OpPlanSpace::Choice &choice) const {
  std::vector<std::pair<int, double>> values;
  for (size_t c = 0; c < candidateCount; ++c) {
    values.push_back({int(c), choice[c] >= 0 ? 1.0 : 0.0});
    for (const Early &earlier : early[c])
      values.push_back({earlier.column, choice[c] == earlier.at ? 1.0 : 0.0});
  }
  return values;
}

double OpProgram::relaxationBound(int64_t budget) const {
  CbcProgram program;
  for (const Column &column : columns)
    program.addColumn(column.lower, column.upper, column.objective,
                      column.integer);
  for (const Row &row : rows)
    program.addRow(row.terms, row.sense, row.rhs);
  for (const MemoryRow &row : memory)
    program.addRow(row.terms, 'L', inUnits(budget) - row.constant);
  CbcModel cbc = program.load();
  return solveRelaxation(cbc.get());
}

OpProgram::Outcome
OpProgram::solve(std::optional<int64_t> budget, double seconds, int64_t nodes,
                 std::optional<OpIlpWorth> worth,
                 const std::optional<OpPlanSpace::Choice> &start) const {
  CbcProgram program;
  for (const Column &column : columns)
    program.addColumn(column.lower, column.upper, budget ? column.objective : 0,
                      column.integer);
  // Without a budget, the peak is a column to minimise, in bytes in the
  // objective: in MiB, peaks a few bytes apart would differ by less than
  // the solver's least improvement. With microbatches in flight, the
  // step's peak is a column and one row adds what the others hold (the
  // same terms in every memory row would make the program far denser).
  const double infinity = std::numeric_limits<double>::max();
  bool inFlight = othersHeld.has_value();
  int peak = -1;
  if (!budget || inFlight)
    peak = program.addColumn(0, infinity,
                             budget || inFlight ? 0 : std::ldexp(1.0, 20));
  for (const Row &row : rows)
    program.addRow(row.terms, row.sense, row.rhs);
  for (const MemoryRow &row : memory) {
    if (peak < 0) {
      program.addRow(row.terms, 'L', inUnits(*budget) - row.constant);
      continue;
    }
    SmallVector<Term> terms = row.terms;
    terms.push_back({peak, -1});
    program.addRow(terms, 'L', -row.constant);
  }
  if (inFlight) {
    SmallVector<Term> terms = othersHeld->terms;
    terms.push_back({peak, 1});
    if (budget) {
      program.addRow(terms, 'L', inUnits(*budget) - othersHeld->constant);
    } else {
      int total = program.addColumn(0, infinity, std::ldexp(1.0, 20));
      for (Term &term : terms)
        term.second = -term.second;
      terms.push_back({total, 1});
      program.addRow(terms, 'G', othersHeld->constant);
    }
  }
  // A cut plan differs from the solution in at least one binary.
  for (const OpPlanSpace::Choice &choice : cuts) {
    SmallVector<Term> terms;
    double ones = 0;
    for (auto [column, value] : getBinaries(choice)) {
      terms.push_back({column, value > 0.5 ? -1.0 : 1.0});
      ones += value;
    }
    program.addRow(terms, 'G', 1 - ones);
  }
  CbcModel cbc = program.load();
  if (start) {
    std::vector<int> startColumns;
    std::vector<double> startValues;
    for (auto [column, value] : getBinaries(*start)) {
      startColumns.push_back(column);
      startValues.push_back(value);
    }
    Cbc_setMIPStartI(cbc.get(), static_cast<int>(startColumns.size()),
                     startColumns.data(), startValues.data());
  }
  std::optional<double> cutoff;
  double gap = 0.5;
  if (worth && budget) {
    cutoff = double(worth->known - worth->gain) + 0.5;
    gap = double(worth->gain);
  }
  solveWithin(cbc.get(), seconds, nodes, /*feasibilityPump=*/!inFlight, gap,
              cutoff);

  Outcome outcome;
  outcome.proven = Cbc_status(cbc.get()) == 0;
  outcome.bound = Cbc_getBestPossibleObjValue(cbc.get());
  if (const double *solution = Cbc_bestSolution(cbc.get())) {
    OpPlanSpace::Choice choice(candidateCount, -1);
    for (size_t c = 0; c < candidateCount; ++c) {
      if (solution[c] < 0.5)
        continue;
      choice[c] = firstReader[c];
      for (const Early &earlier : early[c])
        if (solution[earlier.column] > 0.5)
          choice[c] = earlier.at;
    }
    outcome.choice = std::move(choice);
  }
  return outcome;
}

} // namespace

OpIlpResult ckpt::findOpPlanIlp(func::FuncOp step, const OpPlanSpace &space,
                                std::optional<int64_t> budget,
                                const IlpLimits &limits, unsigned microbatches,
                                const std::optional<OpPlanSpace::Choice> &start,
                                std::optional<OpIlpWorth> worth) {
  auto begin = std::chrono::steady_clock::now();
  OpIlpResult result;
  OpProgram program(space, microbatches);
  auto simulate = [&](const OpPlanSpace::Choice &choice)
      -> std::optional<std::pair<int64_t, uint64_t>> {
    FailureOr<PlanEvaluation> evaluated =
        evaluateOpPlan(step, space.getPlan(choice));
    if (failed(evaluated))
      return std::nullopt;
    return std::make_pair(
        static_cast<int64_t>(std::min<uint64_t>(
            evaluated->peak.getPeakWithMicrobatches(microbatches), INT64_MAX)),
        evaluated->cost.recompute.flops);
  };
  std::optional<OpPlanSpace::Choice> incumbent = start;
  std::optional<int64_t> limit = budget;
  // Keeping everything fits: nothing to recompute.
  const OpPlanSpace::Model &model = space.getModel();
  int64_t unplanned =
      *llvm::max_element(model.timeline) +
      int64_t(microbatches - 1) * model.activationBytesAtBackward;
  if (budget && unplanned <= *budget) {
    result.choice = OpPlanSpace::Choice(space.getCandidates().size(), -1);
    result.peak = unplanned;
    result.optimal = true;
    return result;
  }
  // Without a budget: the smallest peak first, which then bounds the FLOPs.
  while (!limit) {
    double left = limits.seconds - secondsSince(begin);
    if (left <= 0)
      return result;
    OpProgram::Outcome outcome = program.solve(std::nullopt, left, limits.nodes,
                                               std::nullopt, incumbent);
    ++result.solves;
    if (!outcome.choice)
      return result;
    std::optional<std::pair<int64_t, uint64_t>> measured =
        simulate(*outcome.choice);
    if (!measured)
      return result;
    limit = measured->first;
    incumbent = outcome.choice;
  }

  double seconds = limits.seconds;
  if (worth) {
    double bound = program.relaxationBound(*limit);
    result.lowerBound = static_cast<uint64_t>(std::max(0.0, std::ceil(bound)));
    double gain = double(worth->known) - bound;
    if (gain < double(worth->gain))
      return result;
    // The time is worth what the relaxation leaves beyond the gain asked
    // for: near that gain, a plan that reaches it is rare and hard to find.
    seconds *= std::min(1.0, (gain - double(worth->gain)) /
                                 double(std::max<uint64_t>(worth->fullTime, 1)));
  }
  while (true) {
    double left = seconds - secondsSince(begin);
    if (left <= 0)
      break;
    OpProgram::Outcome outcome =
        program.solve(limit, left, limits.nodes, worth, incumbent);
    ++result.solves;
    double bound = std::max(0.0, std::ceil(outcome.bound - 1e-6));
    result.lowerBound =
        bound >= 0x1p64 ? UINT64_MAX : static_cast<uint64_t>(bound);
    if (!outcome.choice) {
      result.optimal = outcome.proven && !incumbent;
      break;
    }
    std::optional<std::pair<int64_t, uint64_t>> measured =
        simulate(*outcome.choice);
    if (!measured || measured->first > *limit) {
      ++result.misses;
      program.cut(*outcome.choice);
      continue;
    }
    result.choice = outcome.choice;
    result.peak = measured->first;
    result.flops = measured->second;
    result.optimal = outcome.proven;
    break;
  }
  if (!result.choice && incumbent) {
    if (std::optional<std::pair<int64_t, uint64_t>> measured =
            simulate(*incumbent);
        measured && measured->first <= *limit) {
      result.choice = incumbent;
      result.peak = measured->first;
      result.flops = measured->second;
    }
  }
  if (result.optimal && result.choice)
    result.lowerBound = result.flops;
  return result;
}
