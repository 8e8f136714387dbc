/* fuzz_kvs_wire.c — fuzz target for the framing code that reads bytes from
 * other processes and machines: the key-value store's frames and handshake
 * (runtime/kvs_wire.c) and the boltrun <-> bolt-hostd channel
 * (launcher/chan_wire.c). Built with libFuzzer (make fuzz-kvs-wire, clang
 * -fsanitize=fuzzer) or, everywhere, with replay.c, which runs the corpus.
 *
 * Input layout: byte 0 picks the decoder, the rest is the stream. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "launcher/chan_wire.h"
#include "runtime/kvs_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void kvs_stream(const uint8_t *p, size_t n)
{
    /* As kvs_server.c does: frames one after the other until one is
     * incomplete or malformed. */
    size_t off = 0;
    for (;;) {
        size_t fl = 0;
        const char *why = NULL;
        int r = bolt_kvs_frame_complete(p + off, n - off, &fl, &why);
        if (r <= 0)
            return;
        struct bolt_kvs_msg m;
        if (bolt_kvs_decode(p + off + 4, fl - 4, &m, &why) == 0) {
            /* A decoded message re-encodes to the same bytes. */
            uint8_t out[4 + 1 + 1 + 255 + 4 + 4096 + 8];
            size_t ol = 0;
            if (m.vallen <= 4096 && bolt_kvs_encode(&m, out, sizeof out, &ol, &why) == 0 &&
                (ol != fl || memcmp(out, p + off, fl) != 0))
                __builtin_trap();
        }
        off += fl;
    }
}

static void chan_stream(const uint8_t *p, size_t n)
{
    size_t off = 0;
    for (;;) {
        size_t fl = 0;
        const char *why = NULL;
        if (chan_frame_complete(p + off, n - off, &fl, &why) <= 0)
            return;
        if (p[off + 4] == CHAN_START) {
            struct chan_start s;
            (void)chan_start_decode(p + off + 5, fl - 5, &s, &why);
        } else {
            struct chan_rd rd = {p + off + 5, p + off + fl, 0};
            size_t bl;
            (void)chan_rd_u32(&rd);
            (void)chan_rd_bytes(&rd, &bl);
            (void)chan_rd_u8(&rd);
        }
        off += fl;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    switch (data[0] % 4) {
    case 0:
        kvs_stream(p, n);
        break;
    case 1:
        chan_stream(p, n);
        break;
    case 2:
        if (n >= BOLT_KVS_HELLO_BYTES) {
            uint8_t nonce[BOLT_KVS_NONCE_BYTES];
            (void)bolt_kvs_hello_decode(p, nonce);
        }
        if (n >= BOLT_KVS_AUTH_BYTES) {
            uint32_t rank;
            uint8_t mac[BOLT_HMAC_BYTES], secret[BOLT_SECRET_BYTES] = {0}, nonce[BOLT_KVS_NONCE_BYTES] = {0};
            bolt_kvs_auth_decode(p, &rank, mac);
            if (bolt_kvs_auth_check(secret, nonce, rank, mac)) /* a random MAC never passes */
                __builtin_trap();
        }
        break;
    default: {
        char text[64];
        size_t l = n < sizeof text - 1 ? n : sizeof text - 1;
        memcpy(text, p, l);
        text[l] = '\0';
        struct sockaddr_in sa;
        const char *why;
        (void)bolt_kvs_parse_addr(text, &sa, &why);
    }
    }
    return 0;
}
