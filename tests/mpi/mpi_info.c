/* mpi_info.c — MPI_Info objects: set / get (valuelen truncation and flag),
 * get_valuelen, nkeys / nthkey, delete (MPI_ERR_INFO_NOKEY), dup (an
 * independent copy), free, the length limits, and MPI_INFO_ENV. */
#include "mtest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_info");
    MPI_Info info, copy;
    char value[MPI_MAX_INFO_VAL + 1], key[MPI_MAX_INFO_KEY + 1];
    int flag = -1, len = -1, n = -1, rc, cls;

    CHECK_MPI(MPI_Info_create(&info));
    CHECK(info != MPI_INFO_NULL, "Info_create gave MPI_INFO_NULL");
    MPI_Info_get_nkeys(info, &n);
    CHECK(n == 0, "a new info has %d keys", n);
    CHECK_MPI(MPI_Info_set(info, "cb_nodes", "4"));
    CHECK_MPI(MPI_Info_set(info, "striping_unit", "1048576"));
    CHECK_MPI(MPI_Info_set(info, "host", "node1"));
    CHECK_MPI(MPI_Info_set(info, "cb_nodes", "8")); /* replaces, does not add */
    MPI_Info_get_nkeys(info, &n);
    CHECK(n == 3, "nkeys %d, want 3", n);

    CHECK_MPI(MPI_Info_get(info, "cb_nodes", MPI_MAX_INFO_VAL, value, &flag));
    CHECK(flag && !strcmp(value, "8"), "cb_nodes = '%s' (flag %d)", value, flag);
    /* valuelen 3 copies 3 characters and the terminator. */
    memset(value, 'x', sizeof value);
    CHECK_MPI(MPI_Info_get(info, "striping_unit", 3, value, &flag));
    CHECK(flag && !strcmp(value, "104"), "truncated value '%s'", value);
    CHECK_MPI(MPI_Info_get(info, "nope", MPI_MAX_INFO_VAL, value, &flag));
    CHECK(!flag, "a missing key was found");
    CHECK_MPI(MPI_Info_get_valuelen(info, "striping_unit", &len, &flag));
    CHECK(flag && len == 7, "valuelen %d flag %d", len, flag);
    CHECK_MPI(MPI_Info_get_valuelen(info, "nope", &len, &flag));
    CHECK(!flag, "valuelen of a missing key: flag %d", flag);

    /* Every key shows up once among the nth keys. */
    int seen = 0;
    for (int i = 0; i < 3; i++) {
        CHECK_MPI(MPI_Info_get_nthkey(info, i, key));
        seen |= !strcmp(key, "cb_nodes") ? 1 : !strcmp(key, "striping_unit") ? 2
                                           : !strcmp(key, "host")          ? 4 : 8;
    }
    CHECK(seen == 7, "nthkey gave the keys as a set %d", seen);

    /* dup is independent of the original. */
    CHECK_MPI(MPI_Info_dup(info, &copy));
    CHECK_MPI(MPI_Info_delete(info, "host"));
    MPI_Info_get_nkeys(info, &n);
    CHECK(n == 2, "after delete nkeys %d", n);
    MPI_Info_get_nkeys(copy, &n);
    CHECK(n == 3, "the copy lost a key: %d", n);
    MPI_Info_get(copy, "host", MPI_MAX_INFO_VAL, value, &flag);
    CHECK(flag && !strcmp(value, "node1"), "copy's host '%s'", value);
    MPI_Info_set(copy, "cb_nodes", "16");
    MPI_Info_get(info, "cb_nodes", MPI_MAX_INFO_VAL, value, &flag);
    CHECK(flag && !strcmp(value, "8"), "setting the copy changed the original: '%s'", value);

    /* Errors as values. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    rc = MPI_Info_delete(info, "host");
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_INFO_NOKEY, "deleting a missing key gave class %d", cls);
    char longkey[MPI_MAX_INFO_KEY + 8];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = 0;
    rc = MPI_Info_set(info, longkey, "v");
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_INFO_KEY, "a key of %d characters gave class %d", (int)strlen(longkey), cls);
    static char longval[MPI_MAX_INFO_VAL + 8];
    memset(longval, 'v', sizeof longval - 1);
    rc = MPI_Info_set(info, "k", longval);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_INFO_VALUE, "a value of %d characters gave class %d", (int)strlen(longval), cls);
    rc = MPI_Info_get_nthkey(info, 5, key);
    CHECK(rc != MPI_SUCCESS, "nthkey 5 of 2 succeeded");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);

    CHECK_MPI(MPI_Info_free(&info));
    CHECK(info == MPI_INFO_NULL, "Info_free did not reset the handle");
    CHECK_MPI(MPI_Info_free(&copy));

    /* MPI_INFO_ENV: readable; its keys, if any, have values. */
    CHECK_MPI(MPI_Info_get_nkeys(MPI_INFO_ENV, &n));
    for (int i = 0; i < n; i++) {
        CHECK_MPI(MPI_Info_get_nthkey(MPI_INFO_ENV, i, key));
        CHECK_MPI(MPI_Info_get_valuelen(MPI_INFO_ENV, key, &len, &flag));
        CHECK(flag, "MPI_INFO_ENV key '%s' has no value", key);
    }
    CHECK_MPI(MPI_Info_dup(MPI_INFO_ENV, &copy));
    CHECK_MPI(MPI_Info_set(copy, "mine", "yes"));
    MPI_Info_free(&copy);
    return mt_finish();
}
