/*===- dtype.c - element type names and sizes ------------------------------===*/

#include "internal.h"

#include <string.h>

typedef struct dtype_entry {
  const char *name;
  size_t size;
} dtype_entry;

/* Indexed by nlrt_dtype. */
static const dtype_entry dtypes[] = {
    [NLRT_DTYPE_F16] = {"f16", 2},   [NLRT_DTYPE_BF16] = {"bf16", 2},
    [NLRT_DTYPE_F32] = {"f32", 4},   [NLRT_DTYPE_F64] = {"f64", 8},
    [NLRT_DTYPE_I1] = {"i1", 1},     [NLRT_DTYPE_I8] = {"i8", 1},
    [NLRT_DTYPE_I16] = {"i16", 2},   [NLRT_DTYPE_I32] = {"i32", 4},
    [NLRT_DTYPE_I64] = {"i64", 8},   [NLRT_DTYPE_UI8] = {"ui8", 1},
    [NLRT_DTYPE_UI16] = {"ui16", 2}, [NLRT_DTYPE_UI32] = {"ui32", 4},
    [NLRT_DTYPE_UI64] = {"ui64", 8}, [NLRT_DTYPE_C64] = {"c64", 8},
    [NLRT_DTYPE_C128] = {"c128", 16},
};

#define NUM_DTYPES (sizeof(dtypes) / sizeof(dtypes[0]))

static bool is_valid(nlrt_dtype dtype) {
  /* The enum's underlying type may be unsigned; compare as unsigned. */
  return (unsigned)dtype < NUM_DTYPES;
}

NLRT_API const char *nlrt_dtype_name(nlrt_dtype dtype) {
  return is_valid(dtype) ? dtypes[dtype].name : NULL;
}

NLRT_API size_t nlrt_dtype_size(nlrt_dtype dtype) {
  return is_valid(dtype) ? dtypes[dtype].size : 0;
}

bool nlrt_dtype_from_name(const char *name, size_t length, nlrt_dtype *out) {
  for (size_t i = 0; i < NUM_DTYPES; ++i) {
    if (strlen(dtypes[i].name) == length &&
        memcmp(dtypes[i].name, name, length) == 0) {
      *out = (nlrt_dtype)i;
      return true;
    }
  }
  return false;
}
