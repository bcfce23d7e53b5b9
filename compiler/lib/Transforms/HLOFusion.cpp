//===- HLOFusion.cpp - group hlo ops into hlo.fusion kernels --------------===//
//
// XLA-style fusion, decided on hlo where the ops still say what they are.
// Each block is walked from its last op up: an op that no group holds yet
// roots a new group, which then takes in its producers as long as the rules
// below allow (docs/fusion.md gives them with examples):
//
// - Only loop ops (elementwise, broadcast, reshape, transpose, slice, pad,
//   concatenate, reverse, iota, splat constants), reductions and
//   contractions (dot_general, convolution) are grouped.
// - A producer whose users are all in the group moves in. One with users
//   outside moves in too, as an extra result, when those users come after
//   the group (multi-output fusion), unless it is cheap to recompute
//   (broadcast, reshape, convert, iota, splat constant): then the group gets
//   a copy of it, made in the IR right away so that every later decision
//   sees the copy's reads, and the original stays for the others.
// - A contraction takes in its consumers (bias, activation), never its
//   operands' producers: fusing tanh(x) into a matmul recomputes each tanh
//   once per column. Nothing is fused into a contraction's operands.
// - Reductions over the same rows share a group, with the ops between them
//   on rows or on reduced values (softmax, layer norm are one group each).
// - An expensive op (exp, log, tanh, pow, ...) is never copied, and never
//   taken in where a broadcast would recompute it per element, except on
//   the reduced values of a group with reductions, which are computed once
//   per row.
// Siblings that read the same input and do not depend on each other then
// merge (multi-output fusion). Groups of one op stay as they are.
//
//===----------------------------------------------------------------------===//

#include "numlir/Dialect/HLO/IR/HLO.h"
#include "numlir/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace numlir {
#define GEN_PASS_DEF_HLOFUSION
#include "numlir/Transforms/Passes.h.inc"
} // namespace numlir

using namespace mlir;
using namespace numlir::hlo;

namespace {

bool isContraction(Operation *op) {
  return isa<DotGeneralOp, ConvolutionOp>(op);
}

bool isSplatConstant(Operation *op) {
  auto constant = dyn_cast<ConstantOp>(op);
  if (!constant)
    return false;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  return dense && dense.isSplat();
}

/// Ops a loop fusion computes element by element or by moving elements.
bool isLoopOp(Operation *op) {
  return op->hasTrait<OpTrait::Elementwise>() || isSplatConstant(op) ||
         isa<ClampOp, BroadcastInDimOp, ReshapeOp, TransposeOp, IotaOp,
             SliceOp, PadOp, ConcatenateOp, ReverseOp>(op);
}

bool hasStaticResults(Operation *op) {
  return op->getNumResults() > 0 &&
         llvm::all_of(op->getResultTypes(), [](Type type) {
           auto tensor = dyn_cast<RankedTensorType>(type);
           return tensor && tensor.hasStaticShape();
         });
}

bool isFusible(Operation *op) {
  return hasStaticResults(op) &&
         (isLoopOp(op) || isa<ReduceOp>(op) || isContraction(op));
}

/// Ops whose recomputation costs about as much as reading their result:
/// a group copies them rather than reading a materialized result.
bool isCheapToCopy(Operation *op) {
  return isSplatConstant(op) ||
         isa<BroadcastInDimOp, ReshapeOp, ConvertOp, IotaOp>(op);
}

/// Elementwise ops that cost many times a load (XLA's "expensive" ops).
bool isExpensive(Operation *op) {
  if (isa<ExpOp, LogOp, TanhOp, LogisticOp, SqrtOp, RsqrtOp, SinOp, CosOp,
          TanOp, PowerOp, Atan2Op, ErfOp, ErfInvOp, LgammaOp, DigammaOp,
          LogPlusOneOp, ExponentialMinusOneOp, AsinOp, AcosOp, AtanOp,
          SinhOp, CoshOp, AsinhOp, AcoshOp, AtanhOp, CbrtOp, NextAfterOp>(op))
    return true;
  // Integer division and remainder are long-latency instructions.
  if (isa<DivideOp, RemainderOp>(op))
    return !isa<FloatType>(
        cast<RankedTensorType>(op->getResultTypes()[0]).getElementType());
  return false;
}

/// Whether `op` is a broadcast that reads each operand element more than
/// once.
bool expandsElements(Operation *op) {
  auto broadcast = dyn_cast<BroadcastInDimOp>(op);
  return broadcast &&
         broadcast.getType().getNumElements() >
             cast<RankedTensorType>(broadcast.getOperand().getType())
                 .getNumElements();
}

/// The rows a reduction runs along: its operand's type and reduced dims.
struct Rows {
  Type operandType;
  ArrayRef<int64_t> dims;
  bool operator==(const Rows &other) const {
    return operandType == other.operandType && dims == other.dims;
  }
};

Rows rowsOf(ReduceOp reduce) {
  return {reduce.getOperand().getType(), reduce.getDimensions()};
}

/// Whether values of `type` are no more than one per row of `rows` (what a
/// row kernel computes once per row).
bool isOnReducedRows(Type type, const Rows &rows) {
  auto rowsType = cast<RankedTensorType>(rows.operandType);
  int64_t rowLength = 1;
  for (int64_t dim : rows.dims)
    rowLength *= rowsType.getDimSize(dim);
  return cast<RankedTensorType>(type).getNumElements() * rowLength <=
         rowsType.getNumElements();
}

/// Whether `broadcast` expands values reduced along `rows` back over the
/// rows they came from (each row reads its own reduced value).
bool reexpandsAlongRows(BroadcastInDimOp broadcast, const Rows &rows) {
  auto type = cast<RankedTensorType>(rows.operandType);
  if (broadcast.getType().getShape() != type.getShape())
    return false;
  SmallVector<int64_t> keptDims;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    if (!llvm::is_contained(rows.dims, dim))
      keptDims.push_back(dim);
  return broadcast.getBroadcastDimensions() == ArrayRef<int64_t>(keptDims);
}

struct Group {
  Operation *root;
  /// The ops that move into the fusion (copies of cheap ops included).
  llvm::SetVector<Operation *> members;
  /// Ops whose values the group's loops recompute per element of a
  /// broadcast (which an expensive op must not be).
  llvm::DenseSet<Operation *> replicated;
  std::optional<Rows> rows;
  bool hasContraction = false;
};

class BlockFusion {
public:
  explicit BlockFusion(Block &block) : block(block) {
    unsigned index = 0;
    for (Operation &op : block)
      position[&op] = index++;
  }

  void run() {
    SmallVector<Operation *> ops;
    for (Operation &op : block.without_terminator())
      ops.push_back(&op);
    for (Operation *op : llvm::reverse(ops)) {
      bool copiedAway = copiedOriginals.contains(op) && op->use_empty();
      if (!groupOf.count(op) && !copiedAway && isFusible(op))
        grow(newGroup(op));
    }
    mergeRowProducers();
    mergeSiblings();
    for (Group &group : groups)
      if (group.root && group.members.size() > 1)
        materialize(group);
    // Originals whose every reader got a copy.
    for (Operation *original : copiedOriginals)
      if (!groupOf.count(original) && original->use_empty())
        original->erase();
  }

private:
  Block &block;
  llvm::DenseMap<Operation *, unsigned> position;
  llvm::DenseMap<Operation *, unsigned> groupOf;
  std::vector<Group> groups;
  llvm::SetVector<Operation *> copiedOriginals;
  /// Each group's copy of an op, so that it gets one however many of its
  /// ops read it.
  llvm::DenseMap<std::pair<unsigned, Operation *>, Operation *> copies;

  unsigned newGroup(Operation *root) {
    Group group;
    group.root = root;
    groups.push_back(std::move(group));
    unsigned id = groups.size() - 1;
    addMember(id, root);
    return id;
  }

  void addMember(unsigned id, Operation *op) {
    Group &group = groups[id];
    group.members.insert(op);
    groupOf[op] = id;
    if (auto reduce = dyn_cast<ReduceOp>(op))
      group.rows = rowsOf(reduce);
    if (isContraction(op))
      group.hasContraction = true;
  }

  /// Gives group `id` a copy of `producer`, read by the group's ops in
  /// place of the original.
  Operation *addCopy(unsigned id, Operation *producer) {
    Operation *&copy = copies[{id, producer}];
    bool isNew = !copy;
    if (isNew) {
      OpBuilder builder(producer->getContext());
      builder.setInsertionPointAfter(producer);
      copy = builder.clone(*producer);
      position[copy] = position.lookup(producer);
    }
    for (auto [original, copied] :
         llvm::zip_equal(producer->getResults(), copy->getResults()))
      original.replaceUsesWithIf(copied, [&](OpOperand &use) {
        return groups[id].members.contains(use.getOwner());
      });
    copiedOriginals.insert(producer);
    if (isNew)
      addMember(id, copy);
    return copy;
  }

  /// Where `op`'s values become available once groups are fusions: at its
  /// group's root, or where it is.
  unsigned effectivePosition(Operation *op) const {
    auto found = groupOf.find(op);
    return position.lookup(found == groupOf.end() ? op
                                                  : groups[found->second].root);
  }

  bool inBlock(Operation *op) const { return op && position.count(op); }

  /// Whether every operand of `op` is available before `group`'s root.
  bool operandsPrecede(const Group &group, Operation *op) const {
    unsigned root = position.lookup(group.root);
    return llvm::all_of(op->getOperands(), [&](Value value) {
      Operation *def = value.getDefiningOp();
      return !inBlock(def) || group.members.contains(def) ||
             effectivePosition(def) < root;
    });
  }

  /// Whether the group's loops would compute `op`'s elements more than
  /// once: some consumer in the group broadcasts them, directly or through
  /// elementwise ops (a reduction or contraction consumes them once).
  bool isReplicatedIn(const Group &group, Operation *op) const {
    for (Operation *user : op->getUsers()) {
      if (!group.members.contains(user))
        continue;
      if (expandsElements(user) ||
          (group.replicated.contains(user) && !isa<ReduceOp>(user) &&
           !isContraction(user)))
        return true;
    }
    return false;
  }

  enum class Decision { Refuse, Defer, Move, Copy };

  Decision decide(unsigned id, Operation *producer) {
    Group &group = groups[id];
    if (!inBlock(producer) || group.members.contains(producer) || !isFusible(producer))
      return Decision::Refuse;
    // Nothing is computed inside a contraction's operands.
    for (Operation *user : producer->getUsers())
      if (group.members.contains(user) && isContraction(user))
        return Decision::Refuse;
    if (isContraction(producer) && (group.hasContraction || group.rows))
      return Decision::Refuse;
    if (auto reduce = dyn_cast<ReduceOp>(producer)) {
      if (group.hasContraction ||
          (group.rows && !(*group.rows == rowsOf(reduce))))
        return Decision::Refuse;
      // Reduced values broadcast back go to their own rows: row sums of a
      // square matrix broadcast along its columns would mix rows.
      for (Operation *user : producer->getUsers())
        if (auto broadcast = dyn_cast<BroadcastInDimOp>(user);
            broadcast && group.members.contains(user) &&
            !reexpandsAlongRows(broadcast, rowsOf(reduce)))
          return Decision::Refuse;
    }
    if (!operandsPrecede(group, producer))
      return Decision::Refuse;
    if (isExpensive(producer) && isReplicatedIn(group, producer)) {
      // Values on the reduced rows of a group with reductions are computed
      // once per row; anywhere else this recomputes per element.
      if (!group.rows)
        return Decision::Defer;
      if (!isOnReducedRows(producer->getResultTypes()[0], *group.rows))
        return Decision::Refuse;
    }

    bool allUsersMoved = true, externalUsersFollow = true;
    unsigned root = position.lookup(group.root);
    for (Operation *user : producer->getUsers()) {
      if (group.members.contains(user))
        continue;
      allUsersMoved = false;
      if (!inBlock(user) || effectivePosition(user) <= root)
        externalUsersFollow = false;
    }
    if (copies.count({id, producer}))
      return Decision::Copy;
    if (groupOf.count(producer))
      return isCheapToCopy(producer) ? Decision::Copy : Decision::Refuse;
    if (allUsersMoved)
      return Decision::Move;
    if (isCheapToCopy(producer))
      return Decision::Copy;
    return externalUsersFollow ? Decision::Move : Decision::Refuse;
  }

  /// Takes producers into group `id` until the rules refuse all of them.
  void grow(unsigned id) {
    SmallVector<Operation *> worklist(groups[id].members.begin(),
                                      groups[id].members.end());
    SmallVector<Operation *> deferred;
    while (true) {
      while (!worklist.empty()) {
        Operation *op = worklist.pop_back_val();
        if (isContraction(op))
          continue;
        for (Value operand : op->getOperands()) {
          Operation *producer = operand.getDefiningOp();
          switch (decide(id, producer)) {
          case Decision::Refuse:
            break;
          case Decision::Defer:
            deferred.push_back(producer);
            break;
          case Decision::Move:
            addMember(id, producer);
            worklist.push_back(producer);
            break;
          case Decision::Copy:
            producer = addCopy(id, producer);
            worklist.push_back(producer);
            break;
          }
          Group &group = groups[id];
          if (group.members.contains(producer) && isReplicatedIn(group, producer))
            group.replicated.insert(producer);
        }
      }
      // A reduction taken in since may have made a deferred op a value
      // on reduced rows.
      if (!groups[id].rows || deferred.empty())
        return;
      SmallVector<Operation *> retry;
      std::swap(retry, deferred);
      for (Operation *producer : retry) {
        Decision decision = decide(id, producer);
        if (decision == Decision::Move) {
          addMember(id, producer);
          worklist.push_back(producer);
        }
      }
      if (worklist.empty())
        return;
    }
  }

  /// The group's ops in block order.
  SmallVector<Operation *> opsOf(const Group &group) const {
    SmallVector<Operation *> ops(group.members.begin(), group.members.end());
    llvm::stable_sort(ops, [&](Operation *a, Operation *b) {
      if (position.lookup(a) != position.lookup(b))
        return position.lookup(a) < position.lookup(b);
      // A copy sits right after its original (same position).
      return a->isBeforeInBlock(b);
    });
    return ops;
  }

  /// The values `group` reads from outside, in order of first use.
  llvm::SetVector<Value> inputsOf(const Group &group) const {
    llvm::SetVector<Value> inputs;
    for (Operation *op : opsOf(group))
      for (Value operand : op->getOperands())
        if (!group.members.contains(operand.getDefiningOp()))
          inputs.insert(operand);
    return inputs;
  }

  /// The iteration space of a group without contractions: its rows, or its
  /// root's shape.
  static ArrayRef<int64_t> iterationShapeOf(const Group &group) {
    Type type = group.rows ? group.rows->operandType
                           : group.root->getResultTypes()[0];
    return cast<RankedTensorType>(type).getShape();
  }

  /// Whether `op`, an op of `a` or `b`, computes each of `rows`'s rows from
  /// that row alone. A broadcast is when it reads data from outside both
  /// groups, or re-expands reduced values along the rows they reduce (a
  /// square matrix's row sums broadcast along its columns mix rows).
  static bool isRowLocal(Operation *op, const Rows &rows, const Group &a,
                         const Group &b) {
    if (op->hasTrait<OpTrait::Elementwise>() || isSplatConstant(op) ||
        isa<ClampOp, ReduceOp>(op))
      return true;
    auto broadcast = dyn_cast<BroadcastInDimOp>(op);
    if (!broadcast)
      return false;
    Operation *def = broadcast.getOperand().getDefiningOp();
    return (!a.members.contains(def) && !b.members.contains(def)) ||
           reexpandsAlongRows(broadcast, rows);
  }

  /// Moves `from`'s ops into `into` (whose root is the later one).
  void mergeInto(unsigned into, unsigned from) {
    Group &a = groups[from], &b = groups[into];
    for (Operation *member : a.members) {
      b.members.insert(member);
      groupOf[member] = into;
    }
    if (a.rows)
      b.rows = a.rows;
    b.hasContraction |= a.hasContraction;
    a.root = nullptr;
    a.members.clear();
  }

  /// Whether every reader of `group`'s ops, other than `except`'s ops,
  /// comes after `root`.
  bool readersFollow(const Group &group, const Group &except,
                     unsigned root) const {
    return llvm::all_of(group.members, [&](Operation *member) {
      return llvm::all_of(member->getUsers(), [&](Operation *user) {
        return group.members.contains(user) || except.members.contains(user) ||
               (inBlock(user) && effectivePosition(user) > root);
      });
    });
  }

  /// Merges a group with reductions into a row-local consumer group over
  /// the same rows: layer norm's normalization reads the centred rows and
  /// the reduced statistics that its first group computes, and both run
  /// row by row.
  void mergeRowProducers() {
    for (size_t into = 0; into < groups.size(); ++into) {
      for (size_t from = 0; from < groups.size(); ++from) {
        Group &a = groups[from], &b = groups[into];
        if (from == into || !a.root || !b.root || !a.rows ||
            a.hasContraction || b.hasContraction ||
            position.lookup(a.root) >= position.lookup(b.root) ||
            (b.rows && !(*b.rows == *a.rows)) ||
            iterationShapeOf(b) !=
                cast<RankedTensorType>(a.rows->operandType).getShape() ||
            !llvm::all_of(b.members, [&](Operation *op) {
              return isRowLocal(op, *a.rows, a, b);
            }))
          continue;
        llvm::SetVector<Value> inputs = inputsOf(b);
        bool readsA = llvm::any_of(inputs, [&](Value value) {
          return a.members.contains(value.getDefiningOp());
        });
        // Values of `a` read through other ops would make a cycle.
        if (!readsA || dependsOn(b, a, /*throughOthers=*/true) ||
            !readersFollow(a, b, position.lookup(b.root)) ||
            !rowValuesStayOnRows(a, b))
          continue;
        mergeInto(into, from);
      }
    }
  }

  /// Whether each value of `a` that `b` broadcasts is on `a`'s reduced
  /// rows, so that merging recomputes nothing per element.
  bool rowValuesStayOnRows(const Group &a, const Group &b) const {
    return llvm::all_of(b.members, [&](Operation *member) {
      if (!expandsElements(member))
        return true;
      Operation *def = member->getOperand(0).getDefiningOp();
      return !a.members.contains(def) || !isExpensive(def) ||
             isOnReducedRows(def->getResultTypes()[0], *a.rows);
    });
  }

  /// Whether a value `later` reads depends on an op of `earlier`; with
  /// `throughOthers`, only through ops that neither group holds.
  bool dependsOn(const Group &later, const Group &earlier,
                 bool throughOthers) const {
    unsigned first = ~0u;
    for (Operation *member : earlier.members)
      first = std::min(first, position.lookup(member));
    SmallVector<Operation *> worklist;
    llvm::DenseSet<Operation *> seen;
    for (Value input : inputsOf(later))
      if (Operation *def = input.getDefiningOp();
          inBlock(def) && !(throughOthers && earlier.members.contains(def)))
        worklist.push_back(def);
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      // Nothing before `earlier`'s first op depends on it.
      if (position.lookup(op) < first || !seen.insert(op).second)
        continue;
      if (earlier.members.contains(op))
        return true;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp(); inBlock(def))
          worklist.push_back(def);
    }
    return false;
  }

  /// Merges groups that read a common input, iterate over the same space
  /// and do not depend on each other (multi-output fusion of siblings).
  void mergeSiblings() {
    for (size_t later = 0; later < groups.size(); ++later) {
      for (size_t earlier = 0; earlier < groups.size(); ++earlier) {
        Group &a = groups[earlier], &b = groups[later];
        if (earlier == later || !a.root || !b.root || a.hasContraction ||
            b.hasContraction ||
            position.lookup(a.root) >= position.lookup(b.root) ||
            iterationShapeOf(a) != iterationShapeOf(b) ||
            (a.rows && b.rows && !(*a.rows == *b.rows)))
          continue;
        // Reading a shared array once pays only when it is as large as the
        // loops: a scalar or a bias vector that both read is no reason.
        llvm::SetVector<Value> inputsA = inputsOf(a), inputsB = inputsOf(b);
        int64_t loopSize = ShapedType::getNumElements(iterationShapeOf(b));
        bool sharesInput = llvm::any_of(inputsA, [&](Value value) {
          auto type = dyn_cast<RankedTensorType>(value.getType());
          return inputsB.contains(value) && type && type.hasStaticShape() &&
                 type.getNumElements() >= loopSize;
        });
        if (!sharesInput || dependsOn(b, a, /*throughOthers=*/false))
          continue;
        // What reads `a` must come after the merged group.
        if (!readersFollow(a, b, position.lookup(b.root)))
          continue;
        mergeInto(later, earlier);
      }
    }
  }

  /// Replaces the group's ops by one hlo.fusion right before its root.
  void materialize(const Group &group) {
    SmallVector<Operation *> ops = opsOf(group);
    llvm::SetVector<Value> inputs = inputsOf(group);

    // Results: each value of a moved op that something outside reads, the
    // root's first.
    SmallVector<Value> outputs;
    auto readOutside = [&](Value value) {
      return llvm::any_of(value.getUsers(), [&](Operation *user) {
        return !group.members.contains(user);
      });
    };
    for (Value value : group.root->getResults())
      outputs.push_back(value);
    for (Operation *op : ops)
      if (op != group.root)
        for (Value value : op->getResults())
          if (readOutside(value))
            outputs.push_back(value);

    FusionKind kind = FusionKind::Loop;
    if (group.hasContraction)
      kind = FusionKind::Output;
    else if (llvm::any_of(ops, [](Operation *op) { return isa<ReduceOp>(op); }))
      kind = FusionKind::Input;

    OpBuilder builder(group.root);
    SmallVector<Type> resultTypes;
    for (Value value : outputs)
      resultTypes.push_back(value.getType());
    auto fusion = FusionOp::create(
        builder, group.root->getLoc(), resultTypes,
        FusionKindAttr::get(builder.getContext(), kind), inputs.getArrayRef());
    Block *body = builder.createBlock(&fusion.getBody());
    IRMapping mapping;
    for (Value input : inputs)
      mapping.map(input, body->addArgument(input.getType(), input.getLoc()));
    builder.setInsertionPointToStart(body);
    for (Operation *op : ops)
      builder.clone(*op, mapping);
    SmallVector<Value> returned;
    for (Value value : outputs)
      returned.push_back(mapping.lookup(value));
    ReturnOp::create(builder, group.root->getLoc(), returned);

    for (auto [value, result] : llvm::zip_equal(outputs, fusion.getResults()))
      value.replaceUsesWithIf(result, [&](OpOperand &use) {
        return !group.members.contains(use.getOwner());
      });
    for (Operation *op : llvm::reverse(ops))
      op->erase();
  }
};

struct HLOFusionPass : numlir::impl::HLOFusionBase<HLOFusionPass> {
  void runOnOperation() override {
    // Blocks of functions and of control flow; not of sort comparators or
    // of fusions already made.
    SmallVector<Block *> blocks;
    getOperation()->walk([&](Block *block) {
      Operation *parent = block->getParentOp();
      if (isa<func::FuncOp, WhileOp, IfOp, CaseOp>(parent))
        blocks.push_back(block);
    });
    for (Block *block : blocks)
      BlockFusion(*block).run();
  }
};

} // namespace
