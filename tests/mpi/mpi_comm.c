/* mpi_comm.c — communicators: dup, split (MPI_UNDEFINED gives
 * MPI_COMM_NULL), split_type, compare, names, attributes and keyvals. */
#include "mtest.h"

static int deleted, copied;

static int copy_fn(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra;
    copied++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm c, int k, void *val, void *extra)
{
    (void)c, (void)k, (void)val, (void)extra;
    deleted++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_comm");
    MPI_Comm dup, half, none, shared;
    int r, s, cmp;

    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &cmp);
    CHECK(cmp == MPI_CONGRUENT, "dup compares as %d", cmp);
    MPI_Comm_compare(dup, dup, &cmp);
    CHECK(cmp == MPI_IDENT, "self compare %d", cmp);

    /* Traffic on the duplicate does not mix with the world's. */
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size, a = -1, b = -1;
    MPI_Request q[4];
    MPI_Irecv(&a, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &q[0]);
    MPI_Irecv(&b, 1, MPI_INT, left, 0, dup, &q[1]);
    int va = 1, vb = 2;
    MPI_Isend(&vb, 1, MPI_INT, right, 0, dup, &q[2]);
    MPI_Isend(&va, 1, MPI_INT, right, 0, MPI_COMM_WORLD, &q[3]);
    MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
    CHECK(a == 1 && b == 2, "contexts mixed: world got %d, dup got %d", a, b);

    /* Reverse order by key, split in halves by color. */
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, -mt_rank, &half));
    MPI_Comm_rank(half, &r);
    MPI_Comm_size(half, &s);
    CHECK(s == (mt_size + 1 - mt_rank % 2) / 2, "half size %d", s);
    CHECK(r == s - 1 - mt_rank / 2, "half rank %d (world %d)", r, mt_rank);
    if (mt_size > 1) {
        MPI_Comm_compare(MPI_COMM_WORLD, half, &cmp);
        CHECK(cmp == MPI_UNEQUAL, "half compares as %d", cmp);
    }

    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, mt_rank == 0 ? 0 : MPI_UNDEFINED, 0, &none));
    CHECK((mt_rank == 0) == (none != MPI_COMM_NULL), "MPI_UNDEFINED did not give MPI_COMM_NULL");
    if (none != MPI_COMM_NULL)
        MPI_Comm_free(&none);

    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared));
    MPI_Comm_size(shared, &s);
    CHECK(s == mt_size, "all ranks run on this host, split_type gave %d of %d", s, mt_size);
    MPI_Comm_free(&shared);

    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    CHECK(!strcmp(name, "MPI_COMM_WORLD"), "world name '%s'", name);
    MPI_Comm_set_name(dup, "my dup");
    MPI_Comm_get_name(dup, name, &len);
    CHECK(!strcmp(name, "my dup") && len == 6, "dup name '%s'", name);

    int *tag_ub, flag;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
    CHECK(flag && *tag_ub >= 32767, "MPI_TAG_UB %d", flag ? *tag_ub : -1);
    int *wtg;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &wtg, &flag));
    CHECK(!flag || *wtg == 0 || *wtg == 1, "MPI_WTIME_IS_GLOBAL %d", *wtg);

    int key;
    static int value = 42;
    CHECK_MPI(MPI_Comm_create_keyval(copy_fn, delete_fn, &key, NULL));
    CHECK_MPI(MPI_Comm_set_attr(dup, key, &value));
    MPI_Comm dup2;
    CHECK_MPI(MPI_Comm_dup(dup, &dup2));
    int *got;
    CHECK_MPI(MPI_Comm_get_attr(dup2, key, &got, &flag));
    CHECK(flag && got == &value && copied == 1, "attribute not copied to a dup (flag %d)", flag);
    CHECK_MPI(MPI_Comm_get_attr(half, key, &got, &flag));
    CHECK(!flag, "attribute present where it was never set");
    CHECK_MPI(MPI_Comm_delete_attr(dup, key));
    CHECK(deleted == 1, "delete callback ran %d times", deleted);
    MPI_Comm_free(&dup2);
    CHECK(deleted == 2 && dup2 == MPI_COMM_NULL, "free of a comm with an attribute: %d deletes", deleted);
    MPI_Comm_free_keyval(&key);
    CHECK(key == MPI_KEYVAL_INVALID, "keyval not invalidated");

    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
    return mt_finish();
}
