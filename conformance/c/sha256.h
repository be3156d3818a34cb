/* SHA-256 (FIPS 180-4), streaming: the hashed results of the case format
 * (README.md, "Hashed results") are SHA-256 digests of a canonical text. */
#ifndef CONFORMANCE_SHA256_H
#define CONFORMANCE_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint32_t h[8];
  uint64_t bytes;
  uint8_t block[64];
  size_t used;
} sha256_ctx;

void sha256_init(sha256_ctx *ctx);
void sha256_update(sha256_ctx *ctx, const void *data, size_t n);
/* The digest as 64 lowercase hex digits and a NUL. */
void sha256_hex(sha256_ctx *ctx, char out[65]);

#endif
