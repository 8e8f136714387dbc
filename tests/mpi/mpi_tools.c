/* mpi_tools.c — the tools information interface (MPI 3.1, 14.3) as any MPI
 * has it: initialization that nests and works before MPI_Init and after the
 * last MPI_T_finalize says so; every control variable, performance variable
 * and category described consistently (lengths, indexes by name, enums,
 * members); handles read; the errors the standard names for bad indexes,
 * names, handles and sessions, and for starting, stopping or writing
 * variables that cannot be. Which variables exist differs between MPIs:
 * Bolt's own are checked by mpi_tools_bolt.c. */
#include "mtest.h"

/* Open MPI 4.1 departs from MPI 3.1 in some of the interface's error codes
 * (an index or enum item past the end, writing or resetting a read-only
 * performance variable, a freed session), gives its boolean control
 * variables an enum with MPI_C_BOOL (the standard wants MPI_INT with an
 * enum), and leaves holes among its variable and category indexes (where
 * MPI_T_ERR_INVALID_INDEX answers, even reading some handles): those checks are made elsewhere
 * only. */
#ifdef OPEN_MPI
#define STRICT 0
#else
#define STRICT 1
#endif
#define CHECK_STRICT(cond, ...) CHECK(!STRICT || (cond), __VA_ARGS__)

static int is_int_type(MPI_Datatype dt)
{
    return dt == MPI_INT || dt == MPI_UNSIGNED || dt == MPI_UNSIGNED_LONG ||
           dt == MPI_UNSIGNED_LONG_LONG || dt == MPI_COUNT;
}

/* Room for count elements of any MPI_T datatype. */
static void *room(int count) { return calloc((size_t)(count > 0 ? count : 1) + 1, 16); }

static void strings(void)
{
    int n = 0, len = 0;
    CHECK_MPI(MPI_T_cvar_get_num(&n));
    if (n == 0)
        return;
    char name[256], small[3];
    len = 0;
    CHECK_MPI(MPI_T_cvar_get_info(0, NULL, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    CHECK(len > 1 && len <= 256, "the length a name needs: %d", len);
    int need = len;
    len = (int)sizeof name;
    CHECK_MPI(MPI_T_cvar_get_info(0, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    CHECK(len == need && (int)strlen(name) == need - 1, "name '%s': length %d, needed %d", name,
          len, need);
    len = (int)sizeof small;
    CHECK_MPI(MPI_T_cvar_get_info(0, small, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    CHECK(len == 3 && strlen(small) == 2 && !strncmp(small, name, 2),
          "truncated to 3: '%s', length %d", small, len);
}

static void enum_check(MPI_T_enum e, const char *var)
{
    int num = -1, len = 64;
    char name[64];
    CHECK_MPI(MPI_T_enum_get_info(e, &num, name, &len));
    CHECK(num > 0, "%s: enum '%s' has %d items", var, name, num);
    for (int j = 0; j < num; j++) {
        int value = -99;
        len = 64;
        CHECK_MPI(MPI_T_enum_get_item(e, j, &value, name, &len));
        CHECK(len > 1, "%s: item %d has no name", var, j);
    }
    CHECK_STRICT(MPI_T_enum_get_item(e, num, NULL, NULL, NULL) == MPI_T_ERR_INVALID_ITEM,
                 "%s: item %d past the end", var, num);
}

static void cvars(void)
{
    int n = -1;
    CHECK_MPI(MPI_T_cvar_get_num(&n));
    CHECK(n >= 0, "%d control variables", n);
    for (int i = 0; i < n; i++) {
        char name[256], desc[2048];
        int nlen = (int)sizeof name, dlen = (int)sizeof desc, verb, bind, scope, idx = -1, count;
        MPI_Datatype dt;
        MPI_T_enum e;
        int rc = MPI_T_cvar_get_info(i, name, &nlen, &verb, &dt, &e, desc, &dlen, &bind, &scope);
        if (!STRICT && rc == MPI_T_ERR_INVALID_INDEX)
            continue; /* a hole */
        CHECK(rc == MPI_SUCCESS, "cvar %d: MPI_T_cvar_get_info gave %d", i, rc);
        CHECK_MPI(MPI_T_cvar_get_index(name, &idx));
        CHECK(idx == i, "cvar %d '%s': by name, index %d", i, name, idx);
        CHECK(scope >= MPI_T_SCOPE_CONSTANT && scope <= MPI_T_SCOPE_ALL_EQ, "%s: scope %d", name,
              scope);
        CHECK_STRICT(is_int_type(dt) || dt == MPI_CHAR || dt == MPI_DOUBLE, "%s: datatype", name);
        if (e != MPI_T_ENUM_NULL) {
            CHECK_STRICT(dt == MPI_INT, "%s has an enum, so is an MPI_INT", name);
            enum_check(e, name);
        }
        /* Open MPI 4.1 crashes reading the variables of components it has
         * closed (opal_common_ucx_verbose, ...): there, only its mpi_ ones. */
        if (bind != MPI_T_BIND_NO_OBJECT || (!STRICT && strncmp(name, "mpi_", 4)))
            continue;
        MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
        CHECK_MPI(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
        CHECK(count >= 1, "%s: count %d", name, count);
        void *buf = room(count);
        int r = MPI_T_cvar_read(h, buf);
        CHECK(r == MPI_SUCCESS || (!STRICT && r == MPI_T_ERR_INVALID_INDEX),
              "%s: MPI_T_cvar_read gave %d", name, r);
        free(buf);
        CHECK_MPI(MPI_T_cvar_handle_free(&h));
        CHECK(h == MPI_T_CVAR_HANDLE_NULL, "%s: the freed handle", name);
        if (mt_fails)
            break;
    }
    int idx;
    CHECK_STRICT(MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
                     MPI_T_ERR_INVALID_INDEX,
                 "cvar index %d past the end", n);
    CHECK(MPI_T_cvar_get_index("no such variable, surely", &idx) == MPI_T_ERR_INVALID_NAME,
          "an unknown cvar name");
}

static void pvars(void)
{
    int n = -1;
    MPI_T_pvar_session s = MPI_T_PVAR_SESSION_NULL, s2;
    CHECK_MPI(MPI_T_pvar_get_num(&n));
    CHECK(n >= 0, "%d performance variables", n);
    CHECK_MPI(MPI_T_pvar_session_create(&s));
    CHECK_MPI(MPI_T_pvar_session_create(&s2));
    for (int i = 0; i < n; i++) {
        char name[256], desc[2048];
        int nlen = (int)sizeof name, dlen = (int)sizeof desc, verb, cls, bind, ro, cont, atomic;
        int idx = -1, count;
        MPI_Datatype dt;
        MPI_T_enum e;
        int rc = MPI_T_pvar_get_info(i, name, &nlen, &verb, &cls, &dt, &e, desc, &dlen, &bind, &ro,
                                     &cont, &atomic);
        if (!STRICT && rc != MPI_SUCCESS)
            continue; /* a hole (MPI_T_ERR_INVALID_INDEX or MPI_T_ERR_INVALID) */
        CHECK(rc == MPI_SUCCESS, "pvar %d: MPI_T_pvar_get_info gave %d", i, rc);
        CHECK(cls >= MPI_T_PVAR_CLASS_STATE && cls <= MPI_T_PVAR_CLASS_GENERIC, "%s: class %d",
              name, cls);
        CHECK_MPI(MPI_T_pvar_get_index(name, cls, &idx));
        CHECK(idx == i, "pvar %d '%s': by name and class, index %d", i, name, idx);
        if (bind != MPI_T_BIND_NO_OBJECT)
            continue;
        MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
        CHECK_MPI(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &count));
        void *buf = room(count);
        if (cont) {
            CHECK(MPI_T_pvar_start(s, h) == MPI_T_ERR_PVAR_NO_STARTSTOP,
                  "%s is continuous: it cannot be started", name);
            CHECK(MPI_T_pvar_stop(s, h) == MPI_T_ERR_PVAR_NO_STARTSTOP,
                  "%s is continuous: it cannot be stopped", name);
        }
        CHECK_MPI(MPI_T_pvar_read(s, h, buf));
        if (ro) {
            CHECK_STRICT(MPI_T_pvar_write(s, h, buf) == MPI_T_ERR_PVAR_NO_WRITE, "%s is read-only",
                         name);
            CHECK_STRICT(MPI_T_pvar_reset(s, h) == MPI_T_ERR_PVAR_NO_WRITE,
                         "%s is read-only: no reset", name);
        }
        /* A handle belongs to its session. */
        CHECK(MPI_T_pvar_read(s2, h, buf) == MPI_T_ERR_INVALID_HANDLE,
              "%s: read through another session", name);
        CHECK(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, buf) == MPI_T_ERR_INVALID_HANDLE,
              "reading MPI_T_PVAR_ALL_HANDLES");
        free(buf);
        CHECK_MPI(MPI_T_pvar_handle_free(s, &h));
        CHECK(h == MPI_T_PVAR_HANDLE_NULL, "%s: the freed handle", name);
        if (mt_fails)
            break;
    }
    int idx;
    CHECK_STRICT(MPI_T_pvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                     NULL, NULL) == MPI_T_ERR_INVALID_INDEX,
                 "pvar index %d past the end", n);
    CHECK(MPI_T_pvar_get_index("no such variable, surely", MPI_T_PVAR_CLASS_COUNTER, &idx) ==
              MPI_T_ERR_INVALID_NAME,
          "an unknown pvar name");
    /* Starting every handle of a session skips those that cannot be. */
    CHECK_MPI(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
    CHECK_MPI(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
    MPI_T_pvar_session gone = s;
    CHECK_MPI(MPI_T_pvar_session_free(&s));
    CHECK(s == MPI_T_PVAR_SESSION_NULL, "the freed session");
    if (STRICT) /* Open MPI 4.1 reads the freed session's memory */
        CHECK(MPI_T_pvar_start(gone, MPI_T_PVAR_ALL_HANDLES) == MPI_T_ERR_INVALID_SESSION,
              "a freed session");
    CHECK_MPI(MPI_T_pvar_session_free(&s2));
}

static void categories(void)
{
    int n = -1, ncv = 0, npv = 0, stamp = -1;
    CHECK_MPI(MPI_T_category_get_num(&n));
    CHECK_MPI(MPI_T_cvar_get_num(&ncv));
    CHECK_MPI(MPI_T_pvar_get_num(&npv));
    CHECK_MPI(MPI_T_category_changed(&stamp));
    for (int i = 0; i < n; i++) {
        char name[256];
        int len = (int)sizeof name, nc = -1, np = -1, nk = -1, idx = -1;
        int rc = MPI_T_category_get_info(i, name, &len, NULL, NULL, &nc, &np, &nk);
        if (!STRICT && rc == MPI_T_ERR_INVALID_INDEX)
            continue; /* a hole */
        CHECK(rc == MPI_SUCCESS, "category %d: MPI_T_category_get_info gave %d", i, rc);
        CHECK_MPI(MPI_T_category_get_index(name, &idx));
        CHECK(idx == i, "category %d '%s': by name, index %d", i, name, idx);
        int *ix = malloc(sizeof(int) * (size_t)(nc + np + nk + 1));
        CHECK_MPI(MPI_T_category_get_cvars(i, nc, ix));
        for (int j = 0; j < nc; j++)
            CHECK(ix[j] >= 0 && ix[j] < ncv, "%s: cvar %d", name, ix[j]);
        CHECK_MPI(MPI_T_category_get_pvars(i, np, ix));
        for (int j = 0; j < np; j++)
            CHECK(ix[j] >= 0 && ix[j] < npv, "%s: pvar %d", name, ix[j]);
        CHECK_MPI(MPI_T_category_get_categories(i, nk, ix));
        for (int j = 0; j < nk; j++)
            CHECK(ix[j] >= 0 && ix[j] < n, "%s: category %d", name, ix[j]);
        free(ix);
    }
    CHECK_STRICT(MPI_T_category_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
                     MPI_T_ERR_INVALID_INDEX,
                 "category index %d past the end", n);
}

int main(int argc, char **argv)
{
    int provided = -1, n;
    mt_name = "mpi_tools";
    /* Before MPI_Init, and nested. */
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    CHECK(provided == MPI_THREAD_SINGLE, "provided %d", provided);
    CHECK_MPI(MPI_T_cvar_get_num(&n));
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    mt_init(&argc, &argv, "mpi_tools");
    strings();
    cvars();
    pvars();
    categories();
    CHECK_MPI(MPI_T_finalize());
    CHECK_MPI(MPI_T_cvar_get_num(&n)); /* one initialization left */
    CHECK_MPI(MPI_T_finalize());
    CHECK(MPI_T_cvar_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED, "used after the last finalize");
    CHECK(MPI_T_finalize() == MPI_T_ERR_NOT_INITIALIZED, "finalized once too often");
    /* Again after a full finalize: the interface starts afresh. */
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    CHECK_MPI(MPI_T_pvar_get_num(&n));
    CHECK_MPI(MPI_T_finalize());
    return mt_finish();
}
