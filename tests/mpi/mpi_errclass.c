/* mpi_errclass.c — error classes and codes added at run time (MPI 3.1, 8.5):
 * their classes and strings, the MPI_LASTUSEDCODE attribute, error handlers
 * receiving them, and the arguments the three calls refuse. */
#include "mtest.h"

static int handler_calls, handler_code;

static void record(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    handler_code = *code;
}

static int last_used(void)
{
    int *v = NULL, flag = 0;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag));
    CHECK(flag && v, "MPI_LASTUSEDCODE is not set");
    return flag && v ? *v : -1;
}

static void classes_and_codes(void)
{
    int c1, c2, e1, e2, e3, cls, len;
    char s[MPI_MAX_ERROR_STRING];
    CHECK(last_used() >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d < MPI_ERR_LASTCODE", last_used());
    CHECK_MPI(MPI_Add_error_class(&c1));
    CHECK(c1 >= MPI_ERR_LASTCODE && last_used() >= c1, "class %d, last used %d", c1, last_used());
    CHECK_MPI(MPI_Add_error_code(c1, &e1));
    CHECK_MPI(MPI_Add_error_code(c1, &e2));
    CHECK_MPI(MPI_Add_error_code(MPI_ERR_ARG, &e3));
    CHECK_MPI(MPI_Add_error_class(&c2));
    CHECK(e1 != e2 && e1 != e3 && e2 != e3 && c1 != c2, "values %d %d %d %d %d not distinct", c1,
          e1, e2, e3, c2);
    CHECK(last_used() >= e1 && last_used() >= e2 && last_used() >= e3 && last_used() >= c2,
          "MPI_LASTUSEDCODE %d is below a value added", last_used());
#ifdef BOLT_MPI
    /* Error classes are error codes too (MPI 3.1, 8.4): a class is its own
     * class. (Open MPI 4.1 answers MPI_ERR_UNKNOWN for an added class.) */
    CHECK_MPI(MPI_Error_class(c1, &cls));
    CHECK(cls == c1, "a class is its own class: %d gave %d", c1, cls);
#endif
    CHECK_MPI(MPI_Error_class(e1, &cls));
    CHECK(cls == c1, "code %d: class %d, want %d", e1, cls, c1);
    CHECK_MPI(MPI_Error_class(e2, &cls));
    CHECK(cls == c1, "code %d: class %d, want %d", e2, cls, c1);
    CHECK_MPI(MPI_Error_class(e3, &cls));
    CHECK(cls == MPI_ERR_ARG, "code %d of MPI_ERR_ARG: class %d", e3, cls);

    /* Strings: empty until set, replaced by a later call. */
    s[0] = 'x';
    len = -1;
    CHECK_MPI(MPI_Error_string(e1, s, &len));
    CHECK(len == 0 && s[0] == 0, "no string set yet: '%s' (%d)", s, len);
    CHECK_MPI(MPI_Add_error_string(c1, "the disk is on fire"));
    CHECK_MPI(MPI_Add_error_string(e1, "first words"));
    CHECK_MPI(MPI_Add_error_string(e1, "sector 7 is on fire"));
    CHECK_MPI(MPI_Error_string(e1, s, &len));
    CHECK(!strcmp(s, "sector 7 is on fire") && len == (int)strlen(s), "code string '%s' (%d)", s,
          len);
    CHECK_MPI(MPI_Error_string(c1, s, &len));
    CHECK(!strcmp(s, "the disk is on fire"), "class string '%s'", s);
    CHECK_MPI(MPI_Error_string(e2, s, &len));
    CHECK(len == 0, "e2 has no string of its own: '%s'", s);

    /* Raised through a handler: the handler sees the code; the call returns
     * MPI_SUCCESS once the handler has returned (MPI 3.1, 8.3.6), with
     * MPI_ERRORS_RETURN too. */
    MPI_Comm c;
    MPI_Errhandler h;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Comm_create_errhandler(record, &h));
    CHECK_MPI(MPI_Comm_set_errhandler(c, h));
    handler_calls = 0;
    MPI_Comm_call_errhandler(c, e2);
    CHECK(handler_calls == 1 && handler_code == e2, "handler: %d calls, code %d (want %d)",
          handler_calls, handler_code, e2);
    CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    int rc = MPI_Comm_call_errhandler(c, e3);
    CHECK(rc == MPI_SUCCESS, "MPI_Comm_call_errhandler under MPI_ERRORS_RETURN gave %d", rc);
    CHECK_MPI(MPI_Errhandler_free(&h));
    CHECK_MPI(MPI_Comm_free(&c));
}

/* Many codes: each distinct, each of its class. */
static void many(void)
{
    enum { N = 300 };
    static int codes[N];
    int cls, got;
    CHECK_MPI(MPI_Add_error_class(&cls));
    for (int i = 0; i < N; i++)
        CHECK_MPI(MPI_Add_error_code(i % 2 ? cls : MPI_ERR_OTHER, &codes[i]));
    for (int i = 0; i < N; i++) {
        CHECK_MPI(MPI_Error_class(codes[i], &got));
        CHECK(got == (i % 2 ? cls : MPI_ERR_OTHER), "code %d: class %d", codes[i], got);
        CHECK(i == 0 || codes[i] != codes[i - 1], "codes %d and %d are the same", i - 1, i);
        CHECK(codes[i] <= last_used(), "code %d above MPI_LASTUSEDCODE %d", codes[i], last_used());
        if (mt_fails)
            break;
    }
}

/* What the calls refuse, reported under MPI_ERRORS_RETURN. */
static void refused(void)
{
    int code, rc;
    char longs[MPI_MAX_ERROR_STRING + 10];
    memset(longs, 'a', sizeof longs - 1);
    longs[sizeof longs - 1] = 0;
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    rc = MPI_Add_error_code(-5, &code);
    CHECK(rc != MPI_SUCCESS, "a negative class was accepted");
    rc = MPI_Add_error_code(1 << 29, &code);
    CHECK(rc != MPI_SUCCESS, "a class that does not exist was accepted");
    rc = MPI_Add_error_string(MPI_ERR_TRUNCATE, "mine now");
    CHECK(rc != MPI_SUCCESS, "a predefined code's string was replaced");
    CHECK_MPI(MPI_Add_error_code(MPI_ERR_OTHER, &code));
    rc = MPI_Add_error_string(code, longs);
    CHECK(rc != MPI_SUCCESS, "a string longer than MPI_MAX_ERROR_STRING was accepted");
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_errclass");
    classes_and_codes();
    many();
    refused();
    return mt_finish();
}
