/*===- signature.c - parse "f32[4,8];f32[8]->f32[4]" ----------------------===*
 *
 * Grammar (no whitespace anywhere):
 *   signature := side "->" side
 *   side      := empty | buffer (";" buffer)*
 *   buffer    := dtype "[" dims "]"
 *   dims      := empty | extent ("," extent)*
 *   extent    := [0-9]+            (fits in int64_t)
 *
 *===----------------------------------------------------------------------===*/

#include "internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct parser {
  const char *text;
  const char *pos;
  nlrt_buffer_info *next_buffer;
  int64_t *next_dim;
} parser;

static nlrt_status fail(const parser *p, const char *what) {
  return nlrt_error(NLRT_LOAD_FAILED,
                    "malformed signature \"%.256s\": %s at offset %zu", p->text,
                    what, (size_t)(p->pos - p->text));
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_name_char(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z');
}

static nlrt_status parse_extent(parser *p, int64_t *out) {
  if (!is_digit(*p->pos))
    return fail(p, "expected a dimension");
  int64_t value = 0;
  for (; is_digit(*p->pos); ++p->pos) {
    int digit = *p->pos - '0';
    if (value > (INT64_MAX - digit) / 10)
      return fail(p, "dimension does not fit in int64");
    value = value * 10 + digit;
  }
  *out = value;
  return NLRT_OK;
}

/* Sets num_elements and byte_size, refusing sizes that overflow size_t. */
static nlrt_status compute_sizes(parser *p, nlrt_buffer_info *info) {
  size_t elements = 1;
  bool overflow = false;
  for (size_t i = 0; i < info->rank; ++i) {
    uint64_t extent = (uint64_t)info->dims[i];
    if (extent == 0) {
      /* An empty buffer: earlier overflow is irrelevant. */
      elements = 0;
      overflow = false;
      break;
    }
    if (extent > SIZE_MAX || elements > SIZE_MAX / extent)
      overflow = true;
    else
      elements *= (size_t)extent;
  }
  if (overflow || elements > SIZE_MAX / info->element_size)
    return fail(p, "buffer size overflows size_t");
  info->num_elements = elements;
  info->byte_size = elements * info->element_size;
  return NLRT_OK;
}

static nlrt_status parse_buffer(parser *p) {
  const char *name = p->pos;
  while (is_name_char(*p->pos))
    ++p->pos;
  if (p->pos == name)
    return fail(p, "expected an element type");
  nlrt_buffer_info *info = p->next_buffer;
  if (!nlrt_dtype_from_name(name, (size_t)(p->pos - name), &info->dtype)) {
    p->pos = name;
    return fail(p, "unknown element type");
  }
  info->element_size = nlrt_dtype_size(info->dtype);
  if (*p->pos != '[')
    return fail(p, "expected '['");
  ++p->pos;

  info->dims = p->next_dim;
  info->rank = 0;
  if (*p->pos != ']') {
    for (;;) {
      nlrt_status status = parse_extent(p, p->next_dim);
      if (status != NLRT_OK)
        return status;
      ++p->next_dim;
      ++info->rank;
      if (*p->pos == ']')
        break;
      if (*p->pos != ',')
        return fail(p, "expected ',' or ']'");
      ++p->pos;
    }
  }
  ++p->pos; /* ']' */
  if (info->rank == 0)
    info->dims = NULL;
  ++p->next_buffer;
  return compute_sizes(p, info);
}

/* True when the input continues with `terminator`; "" means the end. */
static bool at(const parser *p, const char *terminator) {
  if (*terminator == '\0')
    return *p->pos == '\0';
  return strncmp(p->pos, terminator, strlen(terminator)) == 0;
}

/* Parses buffers up to `terminator`, which is left unconsumed. */
static nlrt_status parse_side(parser *p, const char *terminator,
                              const char *expected, size_t *count) {
  *count = 0;
  if (at(p, terminator))
    return NLRT_OK;
  for (;;) {
    nlrt_status status = parse_buffer(p);
    if (status != NLRT_OK)
      return status;
    ++*count;
    if (*p->pos != ';')
      break;
    ++p->pos;
  }
  return at(p, terminator) ? NLRT_OK : fail(p, expected);
}

nlrt_status nlrt_signature_parse(const char *text, nlrt_signature *out) {
  memset(out, 0, sizeof(*out));

  /* Every buffer has one '[' and every extent is preceded by '[' or ',', so
   * counting them bounds both arrays before parsing. */
  size_t max_buffers = 0, max_dims = 0;
  for (const char *c = text; *c; ++c) {
    max_buffers += *c == '[';
    max_dims += *c == '[' || *c == ',';
  }
  nlrt_buffer_info *buffers = calloc(max_buffers + 1, sizeof(*buffers));
  int64_t *dims = calloc(max_dims + 1, sizeof(*dims));
  if (!buffers || !dims) {
    free(buffers);
    free(dims);
    return nlrt_error(NLRT_OUT_OF_MEMORY, "out of memory parsing a signature");
  }

  parser p = {text, text, buffers, dims};
  size_t num_inputs = 0, num_outputs = 0;
  nlrt_status status =
      parse_side(&p, "->", "expected ';' or '->'", &num_inputs);
  if (status == NLRT_OK) {
    p.pos += 2;
    status = parse_side(&p, "", "expected ';' or the end", &num_outputs);
  }
  if (status != NLRT_OK) {
    free(buffers);
    free(dims);
    return status;
  }
  out->num_inputs = num_inputs;
  out->num_outputs = num_outputs;
  out->buffers = buffers;
  out->dims = dims;
  return NLRT_OK;
}

void nlrt_signature_destroy(nlrt_signature *signature) {
  free(signature->buffers);
  free(signature->dims);
  memset(signature, 0, sizeof(*signature));
}
