/*
 * kvs_stranger.c — connects to $BOLT_KVS_ADDR like a rank would, but with a
 * wrong job secret (or, with "silent", says nothing at all). Exits 0 when
 * boltrun refused it as it should, 1 otherwise.
 *   kvs_stranger flood N   opens N connections that say nothing, leaves a
 *                          child holding them (for 60 s) and exits 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bolt.h"
#include "runtime/kvs_wire.h"

int main(int argc, char **argv)
{
    int silent = argc > 1 && strcmp(argv[1], "silent") == 0;
    const char *addr = getenv("BOLT_KVS_ADDR"), *why = NULL;
    struct sockaddr_in sa;
    if (addr == NULL || bolt_kvs_parse_addr(addr, &sa, &why) != BOLT_OK) {
        fprintf(stderr, "kvs_stranger: BOLT_KVS_ADDR missing or bad\n");
        return 1;
    }
    if (argc > 2 && strcmp(argv[1], "flood") == 0) {
        int n = atoi(argv[2]);
        for (int i = 0; i < n; i++) {
            int fd = socket(AF_INET, SOCK_STREAM, 0);
            if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
                fprintf(stderr, "kvs_stranger: connection %d: %s\n", i, strerror(errno));
                return 1;
            }
        }
        printf("kvs_stranger: opened %d connections\n", n);
        fflush(stdout);
        pid_t p = fork();
        if (p < 0)
            return 1;
        if (p == 0) {
            sleep(60); /* its rank's guard ends it with the group */
            _exit(0);
        }
        return 0;
    }
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        fprintf(stderr, "kvs_stranger: connect %s: %s\n", addr, strerror(errno));
        return 1;
    }
    bolt_kvs_nosigpipe(fd);
    double deadline = bolt_kvs_now() + 10;
    uint8_t hello[BOLT_KVS_HELLO_BYTES], nonce[BOLT_KVS_NONCE_BYTES], secret[BOLT_SECRET_BYTES];
    uint8_t mac[BOLT_HMAC_BYTES], auth[BOLT_KVS_AUTH_BYTES], ok;
    if (bolt_kvs_read_full(fd, hello, sizeof hello, deadline) != BOLT_OK ||
        bolt_kvs_hello_decode(hello, nonce) != BOLT_OK) {
        fprintf(stderr, "kvs_stranger: no proper greeting\n");
        return 1;
    }
    if (!silent) {
        memset(secret, 0x42, sizeof secret); /* not the job's secret */
        bolt_kvs_auth_mac(secret, nonce, 0, mac);
        bolt_kvs_auth_encode(0, mac, auth);
        if (bolt_kvs_write_full(fd, auth, sizeof auth, deadline) != BOLT_OK) {
            fprintf(stderr, "kvs_stranger: cannot send the proof\n");
            return 1;
        }
    }
    int rc = bolt_kvs_read_full(fd, &ok, 1, deadline);
    if (rc == BOLT_ERR_PEER) {
        printf("kvs_stranger: refused\n");
        return 0;
    }
    fprintf(stderr, "kvs_stranger: %s\n", rc == BOLT_OK ? "was let in!" : "no answer");
    return 1;
}
