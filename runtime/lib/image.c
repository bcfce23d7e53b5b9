/*===- image.c - the executable image header: write, verify ---------------===*
 *
 * An image is a 64-byte header followed by the driver's payload. All
 * integers are little-endian:
 *
 *   offset size
 *        0    8  magic "\x7fNLX\r\n\x1a\n"
 *        8    4  format version (1)
 *       12    4  header size (64)
 *       16    8  payload size
 *       24    4  CRC-32 of the payload
 *       28    4  flags, zero
 *       32   16  driver name, NUL-padded
 *       48   12  zero
 *       60    4  CRC-32 of bytes 0..59
 *
 * As in PNG, the magic's \r\n and \x1a catch images that went through a
 * text-mode transfer. The header has its own checksum so that a damaged size
 * or driver field is reported as damage, not as a size mismatch. CRC-32 is
 * the IEEE 802.3 polynomial (zlib's crc32): Python can check an image
 * without the runtime.
 *
 *===----------------------------------------------------------------------===*/

#include "internal.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static const unsigned char image_magic[8] = {0x7f, 'N',  'L',  'X',
                                             '\r', '\n', 0x1a, '\n'};

enum {
  OFFSET_VERSION = 8,
  OFFSET_HEADER_SIZE = 12,
  OFFSET_PAYLOAD_SIZE = 16,
  OFFSET_PAYLOAD_CRC = 24,
  OFFSET_FLAGS = 28,
  OFFSET_DRIVER = 32,
  DRIVER_FIELD_SIZE = 16,
  OFFSET_HEADER_CRC = 60,
};

_Static_assert(NLRT_IMAGE_HEADER_SIZE == OFFSET_HEADER_CRC + 4,
               "the header checksum ends the header");
_Static_assert(NLRT_IMAGE_MAX_DRIVER_LENGTH + 1 == DRIVER_FIELD_SIZE,
               "driver names are NUL-terminated within their field");

static uint32_t crc_table[256];
static pthread_once_t crc_table_once = PTHREAD_ONCE_INIT;

static void fill_crc_table(void) {
  for (uint32_t n = 0; n < 256; ++n) {
    uint32_t c = n;
    for (int k = 0; k < 8; ++k)
      c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    crc_table[n] = c;
  }
}

static uint32_t crc32(const void *data, size_t size) {
  pthread_once(&crc_table_once, fill_crc_table);
  const unsigned char *bytes = data;
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < size; ++i)
    c = crc_table[(c ^ bytes[i]) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

static void put_u32(unsigned char *at, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    at[i] = (unsigned char)(value >> (8 * i));
}

static void put_u64(unsigned char *at, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    at[i] = (unsigned char)(value >> (8 * i));
}

static uint32_t get_u32(const unsigned char *at) {
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i)
    value = (value << 8) | at[i];
  return value;
}

static uint64_t get_u64(const unsigned char *at) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i)
    value = (value << 8) | at[i];
  return value;
}

bool nlrt_image_has_magic(const void *data, size_t size) {
  return size >= sizeof(image_magic) &&
         memcmp(data, image_magic, sizeof(image_magic)) == 0;
}

NLRT_API nlrt_status nlrt_image_write_header(const char *driver,
                                             const void *payload,
                                             size_t payload_size,
                                             void *header) {
  if (!driver || !header || (!payload && payload_size))
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "nlrt_image_write_header: NULL argument");
  size_t length = strlen(driver);
  if (length == 0 || length > NLRT_IMAGE_MAX_DRIVER_LENGTH)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "driver name must have 1 to %d bytes, got %zu",
                      NLRT_IMAGE_MAX_DRIVER_LENGTH, length);
  unsigned char *out = header;
  memset(out, 0, NLRT_IMAGE_HEADER_SIZE);
  memcpy(out, image_magic, sizeof(image_magic));
  put_u32(out + OFFSET_VERSION, NLRT_IMAGE_FORMAT_VERSION);
  put_u32(out + OFFSET_HEADER_SIZE, NLRT_IMAGE_HEADER_SIZE);
  put_u64(out + OFFSET_PAYLOAD_SIZE, payload_size);
  put_u32(out + OFFSET_PAYLOAD_CRC, crc32(payload, payload_size));
  memcpy(out + OFFSET_DRIVER, driver, length);
  put_u32(out + OFFSET_HEADER_CRC, crc32(out, OFFSET_HEADER_CRC));
  return NLRT_OK;
}

/* The first bytes, escaped, for a "bad magic" message. */
static void describe_start(const unsigned char *bytes, size_t size,
                           char *out, size_t capacity) {
  size_t used = 0;
  out[0] = '\0';
  for (size_t i = 0; i < size && i < 8 && used + 4 < capacity; ++i)
    used += (size_t)snprintf(out + used, capacity - used, "%s%02x",
                             i ? " " : "", bytes[i]);
}

nlrt_status nlrt_image_bad_magic(const char *what, const void *data,
                                 size_t size, const char *alternative) {
  char start[32];
  describe_start(data, size, start, sizeof(start));
  return nlrt_error(
      NLRT_INVALID_EXECUTABLE,
      "%s is not a numlir executable: bad magic (starts with %s%s, expected "
      "7f 4e 4c 58 0d 0a 1a 0a%s%s)",
      what, size ? start : "nothing", size > 8 ? " ..." : "",
      alternative ? " or " : "", alternative ? alternative : "");
}

nlrt_status nlrt_image_check(const void *image, size_t size, const char *what,
                             char *driver, const void **payload,
                             size_t *payload_size) {
  const unsigned char *bytes = image;
  if (!nlrt_image_has_magic(image, size))
    return nlrt_image_bad_magic(what, image, size, NULL);
  if (size < OFFSET_VERSION + 4)
    return nlrt_error(NLRT_INVALID_EXECUTABLE,
                      "%s is truncated: %zu bytes, shorter than the %d-byte "
                      "header",
                      what, size, NLRT_IMAGE_HEADER_SIZE);
  uint32_t version = get_u32(bytes + OFFSET_VERSION);
  if (version != NLRT_IMAGE_FORMAT_VERSION)
    return nlrt_error(NLRT_INVALID_EXECUTABLE,
                      "%s has unsupported format version %u (this runtime "
                      "reads version %d): it is damaged, or was made by a "
                      "different numlir",
                      what, version, NLRT_IMAGE_FORMAT_VERSION);
  if (size < NLRT_IMAGE_HEADER_SIZE)
    return nlrt_error(NLRT_INVALID_EXECUTABLE,
                      "%s is truncated: %zu bytes, shorter than the %d-byte "
                      "header",
                      what, size, NLRT_IMAGE_HEADER_SIZE);
  uint32_t stored_header_crc = get_u32(bytes + OFFSET_HEADER_CRC);
  uint32_t header_crc = crc32(bytes, OFFSET_HEADER_CRC);
  if (stored_header_crc != header_crc)
    return nlrt_error(NLRT_INVALID_EXECUTABLE,
                      "%s is damaged: header checksum mismatch (stored "
                      "%08x, computed %08x)",
                      what, stored_header_crc, header_crc);
  /* Fields below are covered by the header checksum: a mismatch now means
   * the writer broke the format, not that bytes were damaged. */
  uint32_t header_size = get_u32(bytes + OFFSET_HEADER_SIZE);
  const unsigned char *name = bytes + OFFSET_DRIVER;
  if (header_size != NLRT_IMAGE_HEADER_SIZE ||
      get_u32(bytes + OFFSET_FLAGS) != 0 ||
      memchr(name, '\0', DRIVER_FIELD_SIZE) == NULL || name[0] == '\0')
    return nlrt_error(NLRT_INVALID_EXECUTABLE,
                      "%s has a malformed version %d header", what,
                      NLRT_IMAGE_FORMAT_VERSION);
  uint64_t expected = get_u64(bytes + OFFSET_PAYLOAD_SIZE);
  uint64_t actual = size - NLRT_IMAGE_HEADER_SIZE;
  if (expected != actual)
    return nlrt_error(NLRT_INVALID_EXECUTABLE,
                      "%s has the wrong size: the header promises %llu "
                      "payload bytes, the image has %llu (%s)",
                      what, (unsigned long long)expected,
                      (unsigned long long)actual,
                      actual < expected ? "truncated" : "trailing bytes");
  uint32_t stored_crc = get_u32(bytes + OFFSET_PAYLOAD_CRC);
  uint32_t computed_crc = crc32(bytes + NLRT_IMAGE_HEADER_SIZE, actual);
  if (stored_crc != computed_crc)
    return nlrt_error(NLRT_INVALID_EXECUTABLE,
                      "%s is damaged: payload checksum mismatch (stored "
                      "%08x, computed %08x)",
                      what, stored_crc, computed_crc);
  memcpy(driver, name, DRIVER_FIELD_SIZE);
  *payload = bytes + NLRT_IMAGE_HEADER_SIZE;
  *payload_size = (size_t)actual;
  return NLRT_OK;
}

NLRT_API nlrt_status nlrt_image_verify(const void *image, size_t size,
                                       char *driver, const void **payload,
                                       size_t *payload_size) {
  if (!image || !driver || !payload || !payload_size)
    return nlrt_error(NLRT_INVALID_ARGUMENT,
                      "nlrt_image_verify: NULL argument");
  char what[64];
  snprintf(what, sizeof(what), "executable image (%zu bytes)", size);
  return nlrt_image_check(image, size, what, driver, payload, payload_size);
}
