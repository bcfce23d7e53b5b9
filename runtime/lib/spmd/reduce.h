/*===- reduce.h - elementwise combining loops of the collectives ---------===*/

#ifndef NLRT_SPMD_REDUCE_H
#define NLRT_SPMD_REDUCE_H

#include "numlir/runtime.h"

/* hlo's ReduceKind, as the collective table spells it. */
typedef enum nlrt_reduce_kind {
  NLRT_REDUCE_SUM = 0,
  NLRT_REDUCE_PROD = 1,
  NLRT_REDUCE_MAX = 2,
  NLRT_REDUCE_MIN = 3,
  NLRT_REDUCE_AND = 4,
  NLRT_REDUCE_OR = 5,
} nlrt_reduce_kind;

/* accumulator[i] = accumulator[i] (op) operand[i] for i < count: one step of
 * a reduction in group order. The two never overlap. */
typedef void (*nlrt_reduce_function)(void *accumulator, const void *operand,
                                     size_t count);

/* A reduction's two steps: `after` combines the next member's row after
 * the accumulated ones, as above; `before` puts an earlier member's row (or
 * the combination of several) in front of them: accumulator[i] =
 * operand[i] (op) accumulator[i]. With both, a member's own row can
 * accumulate the group's in place whatever its position, each step the
 * same bits as the group-order fold. */
typedef struct nlrt_reduce_loops {
  nlrt_reduce_function after, before;
} nlrt_reduce_loops;

/* The loops for `kind` over `dtype`, or NULLs where the kind does not fit
 * the type: sum and prod on everything but i1; max and min on everything
 * but complex; and, or on integers and i1. Float max and min propagate
 * NaN; f16 and bf16 round to their type at every step; integers wrap. */
nlrt_reduce_loops nlrt_reduce_loops_for(int64_t kind, nlrt_dtype dtype);

/* "sum", "prod", ...; "?" for other values. */
const char *nlrt_reduce_kind_name(int64_t kind);

#endif /* NLRT_SPMD_REDUCE_H */
