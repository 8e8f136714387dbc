/* mpi_errhandler.c — error handler objects (MPI 3.1, 8.3): MPI_Errhandler_free
 * releases a handler, but only once no communicator uses it; a handler freed
 * while attached keeps being called until the communicator lets it go. Many
 * more handlers are created and freed than any fixed table would hold. */
#include "mtest.h"

enum { ROUNDS = 1000 };

static int calls, last_code;

static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    calls++;
    last_code = *code;
}

/* An invalid send on c: rank -5 is no rank. */
static int bad_send(MPI_Comm c)
{
    int x = 0;
    return MPI_Send(&x, 1, MPI_INT, -5, 0, c);
}

static void create_free(void)
{
    int failed = 0;
    for (int i = 0; i < ROUNDS && !failed; i++) {
        MPI_Errhandler h = MPI_ERRHANDLER_NULL;
        int rc = MPI_Comm_create_errhandler(count_errors, &h);
        if (rc != MPI_SUCCESS) {
            CHECK(0, "MPI_Comm_create_errhandler failed (%d) after %d create+free pairs", rc, i);
            failed = 1;
            break;
        }
        CHECK_MPI(MPI_Errhandler_free(&h));
        CHECK(h == MPI_ERRHANDLER_NULL, "MPI_Errhandler_free did not null the handle");
    }
}

/* Freed while attached: still called, and released with the communicator
 * (or when another handler replaces it). */
static void freed_while_attached(void)
{
    for (int i = 0; i < ROUNDS / 4; i++) {
        MPI_Comm c;
        MPI_Errhandler h, h2, got;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        CHECK_MPI(MPI_Comm_create_errhandler(count_errors, &h));
        CHECK_MPI(MPI_Comm_set_errhandler(c, h));
        CHECK_MPI(MPI_Errhandler_free(&h));
        calls = 0;
        int rc = bad_send(c);
        CHECK(calls == 1 && rc != MPI_SUCCESS && last_code == rc,
              "round %d: handler freed while attached: %d calls, send gave %d, handler saw %d",
              i, calls, rc, last_code);
        /* Comm_get_errhandler gives a reference of its own, to free. */
        CHECK_MPI(MPI_Comm_get_errhandler(c, &got));
        CHECK_MPI(MPI_Errhandler_free(&got));
        calls = 0;
        rc = bad_send(c);
        CHECK(calls == 1, "round %d: after get and free, the handler ran %d times", i, calls);
        /* Replaced by another, itself freed at once; then the communicator goes. */
        CHECK_MPI(MPI_Comm_create_errhandler(count_errors, &h2));
        CHECK_MPI(MPI_Comm_set_errhandler(c, h2));
        CHECK_MPI(MPI_Errhandler_free(&h2));
        CHECK_MPI(MPI_Comm_free(&c));
        if (mt_fails)
            break;
    }
}

/* A duplicate inherits the handler, and keeps it when the original goes. */
static void inherited(void)
{
    MPI_Comm a, b;
    MPI_Errhandler h;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    CHECK_MPI(MPI_Comm_create_errhandler(count_errors, &h));
    CHECK_MPI(MPI_Comm_set_errhandler(a, h));
    CHECK_MPI(MPI_Errhandler_free(&h));
    CHECK_MPI(MPI_Comm_dup(a, &b));
    CHECK_MPI(MPI_Comm_free(&a));
    calls = 0;
    int rc = bad_send(b);
    CHECK(calls == 1 && rc != MPI_SUCCESS, "inherited handler: %d calls, send gave %d", calls, rc);
    CHECK_MPI(MPI_Comm_free(&b));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_errhandler");
    create_free();
    freed_while_attached();
    inherited();
    return mt_finish();
}
