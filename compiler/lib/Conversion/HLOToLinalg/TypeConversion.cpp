//===- TypeConversion.cpp - unsigned to signless types, shared builders ---===//

#include "Lowerings.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace numlir::hlo_to_linalg {

static Type toSignless(Type type) {
  auto intType = dyn_cast<IntegerType>(type);
  if (intType && intType.isUnsigned())
    return IntegerType::get(type.getContext(), intType.getWidth());
  return type;
}

SignlessTypeConverter::SignlessTypeConverter() {
  addConversion([](Type type) { return type; });
  addConversion([](IntegerType type) { return toSignless(type); });
  addConversion([](RankedTensorType type) -> Type {
    return type.clone(toSignless(type.getElementType()));
  });
}

RankedTensorType convertedTensorType(const TypeConverter *converter,
                                     Type type) {
  return cast<RankedTensorType>(converter->convertType(type));
}

Value intConstant(OpBuilder &b, Location loc, Type type, const APInt &value) {
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, value));
}

Value intConstant(OpBuilder &b, Location loc, Type type, int64_t value) {
  unsigned width = type.getIntOrFloatBitWidth();
  return intConstant(b, loc, type,
                     APInt(width, value, /*isSigned=*/true,
                           /*implicitTrunc=*/true));
}

Value floatConstant(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
}

Value complexConstant(OpBuilder &b, Location loc, Type type, double re,
                      double im) {
  Type part = cast<ComplexType>(type).getElementType();
  return complex::ConstantOp::create(
      b, loc, type,
      b.getArrayAttr({b.getFloatAttr(part, re), b.getFloatAttr(part, im)}));
}

Value zeroConstant(OpBuilder &b, Location loc, Type type) {
  if (isa<ComplexType>(type))
    return complexConstant(b, loc, type, 0.0, 0.0);
  if (isa<FloatType>(type))
    return floatConstant(b, loc, type, 0.0);
  return intConstant(b, loc, type, 0);
}

Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

Value buildElementwiseGeneric(OpBuilder &b, Location loc,
                              RankedTensorType resultType, ValueRange inputs,
                              ScalarBodyFn body) {
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps(inputs.size() + 1,
                              b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Value init = emptyTensor(b, loc, resultType);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = body(nested, nestedLoc, args.drop_back());
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return generic.getResult(0);
}

} // namespace numlir::hlo_to_linalg
