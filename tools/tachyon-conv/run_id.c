/* SPDX-License-Identifier: MIT */
/*
 * run_id.c - the JSONL run id rule of tachyon-conv.
 *
 *   --run-id HEX      32 hex digits, lowercased
 *   --run-id random   a fresh uuid4, as CPython's uuid.uuid4().hex
 *   (default)         the input's tfmt_bin_run_id; for several inputs
 *                     a 128-bit FNV-1a hash of their run ids in
 *                     command-line order
 *
 * The default makes a conversion reproducible: the same input always gives
 * the same bytes.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "conv.h"

static void hex_encode(const unsigned char *bytes, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";

    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * n] = '\0';
}

/* 16 random bytes shaped as a version 4, RFC 4122 variant UUID. */
static int random_uuid4(char out[33])
{
    unsigned char b[16];
    size_t got = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return cli_file_fail(CLI_EXIT_TROUBLE, "/dev/urandom", "%s",
                             strerror(errno));
    while (got < sizeof b) {
        ssize_t n = read(fd, b + got, sizeof b - got);
        if (n <= 0 && !(n < 0 && errno == EINTR)) {
            close(fd);
            return cli_file_fail(CLI_EXIT_TROUBLE, "/dev/urandom", "%s",
                                 n < 0 ? strerror(errno) : "end of file");
        }
        got += n > 0 ? (size_t)n : 0;
    }
    close(fd);
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    hex_encode(b, sizeof b, out);
    return CLI_EXIT_OK;
}

/*
 * Parse a --run-id argument into out. Returns 0, or an exit code after
 * reporting (2: not 32 hex digits, or no randomness available).
 */
int conv_run_id_parse(const char *arg, char out[33])
{
    size_t i;

    if (strcmp(arg, "random") == 0)
        return random_uuid4(out);
    for (i = 0; arg[i] && i < 32; i++) {
        if (!isxdigit((unsigned char)arg[i]))
            break;
        out[i] = (char)tolower((unsigned char)arg[i]);
    }
    if (i != 32 || arg[i] != '\0')
        return cli_usage("invalid run id '%s' (expected 32 hex digits or "
                         "'random')",
                         arg);
    out[32] = '\0';
    return CLI_EXIT_OK;
}

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* Two 64-bit hashes as 32 hex digits, most significant byte first. */
static void hashes_hex(uint64_t h1, uint64_t h2, char out[33])
{
    unsigned char b[16];
    for (int i = 0; i < 8; i++) {
        b[i] = (unsigned char)(h1 >> (56 - 8 * i));
        b[8 + i] = (unsigned char)(h2 >> (56 - 8 * i));
    }
    hex_encode(b, sizeof b, out);
}

/* The default run id from the fingerprints of the inputs, in order. */
void conv_run_id_default(char fingerprints[][33], size_t n, char out[33])
{
    uint64_t h1 = 0xcbf29ce484222325ULL;
    uint64_t h2 = 0x84222325cbf29ce4ULL;

    if (n == 1) {
        memcpy(out, fingerprints[0], 33);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        h1 = fnv1a(h1, fingerprints[i], 32);
        h2 = fnv1a(h2, fingerprints[i], 32);
    }
    hashes_hex(h1, h2, out);
}

void conv_run_id_of(tfmt_str run_id, char out[33])
{
    bool hex = run_id.len == 32;
    for (size_t i = 0; hex && i < 32; i++)
        hex = isdigit((unsigned char)run_id.ptr[i]) ||
              (run_id.ptr[i] >= 'a' && run_id.ptr[i] <= 'f');
    if (hex) {
        memcpy(out, run_id.ptr, 32);
        out[32] = '\0';
        return;
    }
    hashes_hex(fnv1a(0xcbf29ce484222325ULL, run_id.ptr, run_id.len),
               fnv1a(0x84222325cbf29ce4ULL, run_id.ptr, run_id.len), out);
}
