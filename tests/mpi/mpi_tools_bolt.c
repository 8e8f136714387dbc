/* mpi_tools_bolt.c — Bolt's own variables in the tools interface: a control
 * variable per BOLT_* setting, each in a category of its part, named values
 * as enums whose names the setting's help lists; writes between
 * MPI_T_init_thread and MPI_Init that the runtime honours (BOLT_TRANSPORTS
 * written as tcp: every peer is then reached over TCP, as the performance
 * variables show), and refused after it, or always for boltrun's settings;
 * counters of messages and bytes sent per transport that count while
 * started, per session; the matching queues' lengths. Bolt only. */
#include "mtest.h"

static int cvar_index(const char *name)
{
    int i = -1;
    CHECK_MPI(MPI_T_cvar_get_index(name, &i));
    return i;
}

static MPI_T_cvar_handle cvar_handle(const char *name)
{
    MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
    int count;
    CHECK_MPI(MPI_T_cvar_handle_alloc(cvar_index(name), NULL, &h, &count));
    return h;
}

static int write_int(const char *name, int v)
{
    MPI_T_cvar_handle h = cvar_handle(name);
    int rc = MPI_T_cvar_write(h, &v), back = -12345;
    if (rc == MPI_SUCCESS) {
        CHECK_MPI(MPI_T_cvar_read(h, &back));
        CHECK(back == v, "%s: wrote %d, read %d", name, v, back);
    }
    MPI_T_cvar_handle_free(&h);
    return rc;
}

/* The value of the enum item named item of cvar name. */
static int enum_value(const char *name, const char *item)
{
    MPI_T_enum e = MPI_T_ENUM_NULL;
    int n = 0, v = -1;
    CHECK_MPI(
        MPI_T_cvar_get_info(cvar_index(name), NULL, NULL, NULL, NULL, &e, NULL, NULL, NULL, NULL));
    CHECK(e != MPI_T_ENUM_NULL, "%s has no enum", name);
    if (e == MPI_T_ENUM_NULL)
        return -1;
    CHECK_MPI(MPI_T_enum_get_info(e, &n, NULL, NULL));
    for (int j = 0; j < n; j++) {
        char s[64];
        int len = (int)sizeof s, val;
        CHECK_MPI(MPI_T_enum_get_item(e, j, &val, s, &len));
        if (!strcmp(s, item))
            v = val;
    }
    CHECK(v >= 0, "%s has no item %s", name, item);
    return v;
}

/* Every cvar is a BOLT_* setting in a category of its own part; named
 * values' items appear in the setting's help. */
static void catalogue(void)
{
    int n = 0, ncat = 0, top = -1;
    CHECK_MPI(MPI_T_cvar_get_num(&n));
    CHECK(n >= 40, "only %d control variables", n);
    CHECK_MPI(MPI_T_category_get_num(&ncat));
    CHECK_MPI(MPI_T_category_get_index("bolt", &top));
    int *seen = calloc((size_t)n, sizeof *seen), nsub = -1;
    CHECK_MPI(MPI_T_category_get_info(top, NULL, NULL, NULL, NULL, NULL, NULL, &nsub));
    CHECK(nsub == ncat - 1, "\"bolt\" holds %d of the %d other categories", nsub, ncat - 1);
    for (int c = 0; c < ncat; c++) {
        int nc = 0, ix[128];
        if (c == top)
            continue;
        CHECK_MPI(MPI_T_category_get_info(c, NULL, NULL, NULL, NULL, &nc, NULL, NULL));
        CHECK_MPI(MPI_T_category_get_cvars(c, 128, ix));
        for (int j = 0; j < nc && j < 128; j++)
            seen[ix[j]]++;
    }
    for (int i = 0; i < n; i++) {
        char name[64], desc[2048];
        int nlen = 64, dlen = (int)sizeof desc;
        MPI_T_enum e;
        CHECK_MPI(MPI_T_cvar_get_info(i, name, &nlen, NULL, NULL, &e, desc, &dlen, NULL, NULL));
        CHECK(!strncmp(name, "BOLT_", 5), "cvar %d is '%s'", i, name);
        CHECK(seen[i] == 1, "%s is in %d categories below \"bolt\"", name, seen[i]);
        int items = 0;
        if (e != MPI_T_ENUM_NULL)
            CHECK_MPI(MPI_T_enum_get_info(e, &items, NULL, NULL));
        for (int j = 0; j < items; j++) {
            char item[64];
            int len = 64;
            CHECK_MPI(MPI_T_enum_get_item(e, j, NULL, item, &len));
            CHECK(strstr(desc, item) != NULL, "%s: its help does not name '%s'", name, item);
        }
    }
    free(seen);
}

/* Before MPI_Init: settings written are what MPI_Init uses. */
static void before_init(void)
{
    MPI_T_cvar_handle h;
    MPI_T_pvar_session s;
    MPI_T_pvar_handle ph;
    int scope = -1, count, pi = -1;
    unsigned long long v = 99;
    CHECK_MPI(MPI_T_pvar_session_create(&s));
    CHECK_MPI(MPI_T_pvar_get_index("bolt_tcp_peers", MPI_T_PVAR_CLASS_LEVEL, &pi));
    CHECK_MPI(MPI_T_pvar_handle_alloc(s, pi, NULL, &ph, &count));
    CHECK_MPI(MPI_T_pvar_read(s, ph, &v));
    CHECK(v == 0, "peers before MPI_Init: %llu", v);
    CHECK_MPI(MPI_T_pvar_session_free(&s));

    CHECK_MPI(MPI_T_cvar_handle_alloc(cvar_index("BOLT_TRANSPORTS"), NULL, &h, &count));
    char text[1024] = "tcp";
    CHECK(count >= 64, "room for BOLT_TRANSPORTS: %d", count);
    CHECK_MPI(MPI_T_cvar_write(h, text));
    memset(text, 0, sizeof text);
    CHECK_MPI(MPI_T_cvar_read(h, text));
    CHECK(!strcmp(text, "tcp"), "BOLT_TRANSPORTS reads '%s'", text);
    CHECK_MPI(MPI_T_cvar_handle_free(&h));

    CHECK(write_int("BOLT_TCP_CONNS", 1) == MPI_SUCCESS, "BOLT_TCP_CONNS before MPI_Init");
    CHECK(write_int("BOLT_BCAST_ALGO", enum_value("BOLT_BCAST_ALGO", "chain")) == MPI_SUCCESS,
          "BOLT_BCAST_ALGO before MPI_Init");
    CHECK(write_int("BOLT_BCAST_ALGO", 99) == MPI_T_ERR_INVALID, "an enum value out of range");
    CHECK(write_int("BOLT_RDMA_LOOPBACK", 7) == MPI_T_ERR_INVALID, "a boolean of 7");
    h = cvar_handle("BOLT_COLL_SEGMENT");
    unsigned long long seg = 512 * 1024, back = 0;
    CHECK_MPI(MPI_T_cvar_write(h, &seg));
    CHECK_MPI(MPI_T_cvar_read(h, &back));
    CHECK(back == seg, "BOLT_COLL_SEGMENT: %llu", back);
    CHECK_MPI(MPI_T_cvar_handle_free(&h));
    h = cvar_handle("BOLT_TIMEOUT");
    double t = -1;
    CHECK(MPI_T_cvar_write(h, &t) == MPI_T_ERR_INVALID, "a negative timeout");
    t = 45.5;
    CHECK_MPI(MPI_T_cvar_write(h, &t));
    t = 0;
    CHECK_MPI(MPI_T_cvar_read(h, &t));
    CHECK(t == 45.5, "BOLT_TIMEOUT: %g", t);
    CHECK_MPI(MPI_T_cvar_handle_free(&h));

    /* boltrun's: never, whatever the time. */
    CHECK_MPI(MPI_T_cvar_get_info(cvar_index("BOLT_RSH"), NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                  NULL, &scope));
    CHECK(scope == MPI_T_SCOPE_CONSTANT, "BOLT_RSH's scope: %d", scope);
    h = cvar_handle("BOLT_RSH");
    CHECK(MPI_T_cvar_write(h, "rsh") == MPI_T_ERR_CVAR_SET_NEVER, "BOLT_RSH written");
    CHECK_MPI(MPI_T_cvar_handle_free(&h));
}

static void after_init(void)
{
    CHECK(write_int("BOLT_TCP_CONNS", 2) == MPI_T_ERR_CVAR_SET_NEVER,
          "BOLT_TCP_CONNS written after MPI_Init");
    CHECK(write_int("BOLT_LOG_LEVEL", 0) == MPI_SUCCESS, "BOLT_LOG_LEVEL after MPI_Init");
    int one = 1, sum = 0;
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == mt_size, "allreduce after the writes: %d", sum);
    int x = mt_rank == 0 ? 42 : 0;
    CHECK_MPI(MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD)); /* by the chain written */
    CHECK(x == 42, "bcast: %d", x);
}

static unsigned long long pread(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v = 0;
    CHECK_MPI(MPI_T_pvar_read(s, h, &v));
    return v;
}

static MPI_T_pvar_handle phandle(MPI_T_pvar_session s, const char *name, int cls)
{
    int i = -1, count;
    MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
    CHECK_MPI(MPI_T_pvar_get_index(name, cls, &i));
    CHECK_MPI(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &count));
    return h;
}

/* n messages of 8 ints to the next rank, and n from the previous one. */
static void ring(int n)
{
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size, b[8] = {0};
    for (int i = 0; i < n; i++)
        CHECK_MPI(MPI_Sendrecv(b, 8, MPI_INT, next, 5, b, 8, MPI_INT, prev, 5, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE));
}

static void traffic(void)
{
    MPI_T_pvar_session s, s2;
    CHECK_MPI(MPI_T_pvar_session_create(&s));
    CHECK_MPI(MPI_T_pvar_session_create(&s2));
    MPI_T_pvar_handle tcp = phandle(s, "bolt_tcp_peers", MPI_T_PVAR_CLASS_LEVEL);
    MPI_T_pvar_handle shm = phandle(s, "bolt_shm_peers", MPI_T_PVAR_CLASS_LEVEL);
    CHECK(pread(s, tcp) == (unsigned long long)mt_size - 1 && pread(s, shm) == 0,
          "BOLT_TRANSPORTS=tcp written before MPI_Init: %llu tcp peers, %llu shm", pread(s, tcp),
          pread(s, shm));
    MPI_T_pvar_handle m = phandle(s, "bolt_tcp_messages_sent", MPI_T_PVAR_CLASS_COUNTER);
    MPI_T_pvar_handle b = phandle(s, "bolt_tcp_bytes_sent", MPI_T_PVAR_CLASS_COUNTER);
    unsigned long long per = mt_size > 1 ? 1 : 0; /* sends to oneself use no transport */
    ring(2);
    CHECK(pread(s, m) == 0, "a counter not started yet: %llu", pread(s, m));
    CHECK_MPI(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
    ring(5);
    CHECK(pread(s, m) == 5 * per && pread(s, b) == 5 * per * 32,
          "5 messages of 32 bytes: %llu messages, %llu bytes", pread(s, m), pread(s, b));
    CHECK_MPI(MPI_T_pvar_stop(s, m));
    MPI_T_pvar_handle m2 = phandle(s2, "bolt_tcp_messages_sent", MPI_T_PVAR_CLASS_COUNTER);
    CHECK_MPI(MPI_T_pvar_start(s2, m2));
    ring(3);
    CHECK(pread(s, m) == 5 * per, "stopped, it counted on: %llu", pread(s, m));
    CHECK(pread(s, b) == 8 * per * 32, "still started: %llu bytes", pread(s, b));
    CHECK(pread(s2, m2) == 3 * per, "the other session's: %llu", pread(s2, m2));
    CHECK_MPI(MPI_T_pvar_start(s, m));
    ring(1);
    CHECK(pread(s, m) == 6 * per, "started again: %llu", pread(s, m));
    CHECK_MPI(MPI_T_pvar_reset(s, m));
    CHECK(pread(s, m) == 0, "reset: %llu", pread(s, m));
    ring(1);
    unsigned long long v = 100, got = 0;
    CHECK(pread(s, m) == per, "counting from the reset: %llu", pread(s, m));
    CHECK_MPI(MPI_T_pvar_write(s, m, &v));
    ring(2);
    CHECK_MPI(MPI_T_pvar_readreset(s, m, &got));
    CHECK(got == 100 + 2 * per && pread(s, m) == 0, "written 100, then 2: read %llu", got);
    CHECK(MPI_T_pvar_write(s, tcp, &v) == MPI_T_ERR_PVAR_NO_WRITE, "a level written");
    CHECK(MPI_T_pvar_start(s, tcp) == MPI_T_ERR_PVAR_NO_STARTSTOP, "a level started");
    CHECK_MPI(MPI_T_pvar_session_free(&s));
    CHECK_MPI(MPI_T_pvar_session_free(&s2));
}

/* Rank 1 sends 5 messages rank 0 has not asked for; they wait in rank 0's
 * unexpected queue until received. The other ranks wait for rank 0's word
 * meanwhile, so that nothing else reaches it (mt_finish's messages would).
 * A receive nothing matches waits in the posted queue. */
static void queues(void)
{
    MPI_T_pvar_session s;
    CHECK_MPI(MPI_T_pvar_session_create(&s));
    MPI_T_pvar_handle ulen = phandle(s, "bolt_unexpected_queue_length", MPI_T_PVAR_CLASS_LEVEL);
    MPI_T_pvar_handle ubytes = phandle(s, "bolt_unexpected_queue_bytes", MPI_T_PVAR_CLASS_LEVEL);
    MPI_T_pvar_handle posted = phandle(s, "bolt_posted_queue_length", MPI_T_PVAR_CLASS_LEVEL);
    int v[4] = {1, 2, 3, 4};
    if (mt_rank == 1) {
        for (int i = 0; i < 4; i++)
            CHECK_MPI(MPI_Send(v, i + 1, MPI_INT, 0, 77, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Send(v, 1, MPI_INT, 0, 78, MPI_COMM_WORLD));
    } else if (mt_rank == 0 && mt_size > 1) {
        CHECK_MPI(MPI_Probe(1, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE)); /* the last is in */
        CHECK(pread(s, ulen) == 5 && pread(s, ubytes) == 11 * sizeof(int),
              "unexpected: %llu messages, %llu bytes", pread(s, ulen), pread(s, ubytes));
        for (int i = 0; i < 4; i++)
            CHECK_MPI(MPI_Recv(v, 4, MPI_INT, 1, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Recv(v, 1, MPI_INT, 1, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(pread(s, ulen) == 0, "all received: %llu left", pread(s, ulen));
    }
    int go = 0;
    if (mt_rank == 0)
        for (int r = 1; r < mt_size; r++)
            CHECK_MPI(MPI_Send(&go, 1, MPI_INT, r, 79, MPI_COMM_WORLD));
    else
        CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, 0, 79, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_Request r;
    CHECK(pread(s, posted) == 0, "posted before: %llu", pread(s, posted));
    CHECK_MPI(MPI_Irecv(v, 1, MPI_INT, MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &r)); /* none sent */
    CHECK(pread(s, posted) == 1, "posted: %llu", pread(s, posted));
    CHECK_MPI(MPI_Cancel(&r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(pread(s, posted) == 0, "cancelled: %llu", pread(s, posted));
    CHECK_MPI(MPI_T_pvar_session_free(&s));
}

int main(int argc, char **argv)
{
    int provided = -1;
    mt_name = "mpi_tools_bolt";
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == mt_bolt_multiple(), "MPI_T provides %d, want %d", provided,
          mt_bolt_multiple());
    catalogue();
    before_init();
    mt_init(&argc, &argv, "mpi_tools_bolt");
    after_init();
    traffic();
    queues();
    char text[MPI_MAX_ERROR_STRING];
    int len;
    CHECK_MPI(MPI_Error_string(MPI_T_ERR_CVAR_SET_NEVER, text, &len));
    CHECK(strstr(text, "MPI_T_ERR_CVAR_SET_NEVER") != NULL, "its string: '%s'", text);
    CHECK_MPI(MPI_T_finalize());
    return mt_finish();
}
