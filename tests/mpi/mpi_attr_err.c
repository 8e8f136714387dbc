/* mpi_attr_err.c — an error returned by an attribute's copy or delete
 * callback makes the call that invoked it fail (MPI 3.1, 6.7.2):
 * MPI_Comm_dup (which then gives MPI_COMM_NULL), MPI_Comm_delete_attr,
 * MPI_Comm_set_attr when it replaces a value whose delete callback fails,
 * and MPI_Comm_free.
 * The communicator has MPI_ERRORS_RETURN, so the errors come back as codes. */
#include "mtest.h"

static int bomb = 1;               /* callbacks fail while set */
static int good_copies, good_deletes;

static int copy_bomb(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    (void)c; (void)key; (void)extra; (void)in; (void)out;
    *flag = 0;
    return MPI_ERR_OTHER;
}

static int delete_bomb(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c; (void)key; (void)val; (void)extra;
    return bomb ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int copy_good(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    (void)c; (void)key; (void)extra;
    good_copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_good(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c; (void)key; (void)val; (void)extra;
    good_deletes++;
    return MPI_SUCCESS;
}

static void failing_dup(void)
{
    MPI_Comm c, d = MPI_COMM_WORLD;
    int kgood, kbomb, rc;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_create_keyval(copy_good, delete_good, &kgood, NULL));
    CHECK_MPI(MPI_Comm_create_keyval(copy_bomb, MPI_COMM_NULL_DELETE_FN, &kbomb, NULL));
    CHECK_MPI(MPI_Comm_set_attr(c, kgood, &good_copies));
    CHECK_MPI(MPI_Comm_set_attr(c, kbomb, &bomb));
    good_copies = good_deletes = 0;
    rc = MPI_Comm_dup(c, &d);
    CHECK(rc != MPI_SUCCESS, "MPI_Comm_dup succeeded although a copy callback failed");
    CHECK(d == MPI_COMM_NULL, "a failed MPI_Comm_dup did not give MPI_COMM_NULL");
    if (rc == MPI_SUCCESS && d != MPI_COMM_NULL)
        CHECK_MPI(MPI_Comm_free(&d));
    /* What was copied into the communicator that could not be made is deleted. */
    CHECK(good_deletes == good_copies, "a failed dup copied %d attributes, deleted %d",
          good_copies, good_deletes);
    CHECK_MPI(MPI_Comm_free_keyval(&kgood));
    CHECK_MPI(MPI_Comm_free_keyval(&kbomb));
    CHECK_MPI(MPI_Comm_free(&c));
}

static void failing_delete(void)
{
    MPI_Comm c;
    int k, rc, flag = 0;
    void *v = NULL;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_bomb, &k, NULL));
    CHECK_MPI(MPI_Comm_set_attr(c, k, &good_copies));
    bomb = 1;
    rc = MPI_Comm_delete_attr(c, k);
    CHECK(rc != MPI_SUCCESS, "MPI_Comm_delete_attr succeeded although the delete callback failed");
    rc = MPI_Comm_set_attr(c, k, &good_deletes);
    CHECK(rc != MPI_SUCCESS, "MPI_Comm_set_attr succeeded although the delete callback of the "
          "value it replaces failed");
    CHECK_MPI(MPI_Comm_get_attr(c, k, &v, &flag));
    CHECK(flag, "the attribute whose delete callback failed is gone");
    bomb = 0;
    CHECK_MPI(MPI_Comm_set_attr(c, k, &good_deletes));
    CHECK_MPI(MPI_Comm_get_attr(c, k, &v, &flag));
    CHECK(flag && v == &good_deletes, "the attribute was not replaced once its callback agreed");
    CHECK_MPI(MPI_Comm_delete_attr(c, k));
    /* Freeing the communicator deletes its attributes: a failure fails the free. */
    CHECK_MPI(MPI_Comm_set_attr(c, k, &good_copies));
    bomb = 1;
    MPI_Comm keep = c;
    rc = MPI_Comm_free(&c);
    CHECK(rc != MPI_SUCCESS, "MPI_Comm_free succeeded although a delete callback failed");
    bomb = 0;
    if (rc != MPI_SUCCESS) {
        c = keep;
        CHECK_MPI(MPI_Comm_free(&c));
    }
    CHECK_MPI(MPI_Comm_free_keyval(&k));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_attr_err");
    failing_dup();
    failing_delete();
    return mt_finish();
}
