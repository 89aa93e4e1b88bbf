/* SPDX-License-Identifier: MIT */
/*
 * digest.c - a 128-bit hash of a byte stream fed in pieces, for the
 * fingerprints that name runs (tfmt_bin_run_id).
 *
 * Four 64-bit lanes take xxHash64's round over 32-byte stripes, so the
 * lanes run in parallel (about memory speed); the tail is padded with
 * zeros into one last stripe and the length is mixed in, so padding is
 * unambiguous; the lanes fold into two words that each depend on all four.
 * Not cryptographic: it tells recordings apart, it does not resist a
 * forgery (a run id can be chosen with --run-id anyway). The output is
 * part of the run id's definition: changing it changes every run id.
 */
#include <string.h>

#include "internal.h"

#define P1 0x9e3779b185ebca87ULL
#define P2 0xc2b2ae3d27d4eb4fULL
#define P3 0x165667b19e3779f9ULL

static uint64_t rotl(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

static uint64_t round64(uint64_t acc, uint64_t input)
{
    acc += input * P2;
    return rotl(acc, 31) * P1;
}

/* Words are read little-endian on every host: a run id must not depend
   on the machine that computed it. */
static bool host_big(void)
{
    const uint16_t probe = 1;
    return *(const uint8_t *)&probe == 0;
}

static void stripe(uint64_t acc[4], const uint8_t *p, bool swap)
{
    for (int i = 0; i < 4; i++)
        acc[i] = round64(acc[i], tfmt__load64(p + 8 * i, swap));
}

void tfmt__digest_init(tfmt_digest *d, uint64_t seed)
{
    memset(d, 0, sizeof *d);
    d->acc[0] = seed + P1 + P2;
    d->acc[1] = seed + P2;
    d->acc[2] = seed;
    d->acc[3] = seed - P1;
}

void tfmt__digest_update(tfmt_digest *d, const void *data, size_t n)
{
    const uint8_t *p = data;
    d->total += n;
    if (d->buffered) {
        size_t take = sizeof d->buf - d->buffered;
        if (take > n)
            take = n;
        memcpy(d->buf + d->buffered, p, take);
        d->buffered += take;
        p += take;
        n -= take;
        if (d->buffered < sizeof d->buf)
            return;
        stripe(d->acc, d->buf, host_big());
        d->buffered = 0;
    }
    bool swap = host_big();
    for (; n >= 32; p += 32, n -= 32)
        stripe(d->acc, p, swap);
    if (n) /* memcpy from NULL is undefined even for 0 bytes */
        memcpy(d->buf, p, n);
    d->buffered = n;
}

void tfmt__digest_final(const tfmt_digest *d, uint64_t out[2])
{
    uint64_t acc[4];
    uint8_t last[32] = {0};
    memcpy(acc, d->acc, sizeof acc);
    memcpy(last, d->buf, d->buffered);
    stripe(acc, last, host_big());
    uint64_t len = tfmt__hash_mix(d->total ^ P3);
    uint64_t a = tfmt__hash_mix(acc[0] ^ rotl(acc[1], 17) ^ len);
    uint64_t b = tfmt__hash_mix(acc[2] ^ rotl(acc[3], 17) ^ (len * P1));
    out[0] = tfmt__hash_mix(a ^ rotl(b, 29));
    out[1] = tfmt__hash_mix(b ^ rotl(a, 43) ^ P2);
}
