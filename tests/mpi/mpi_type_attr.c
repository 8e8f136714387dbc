/* mpi_type_attr.c — attributes on datatypes (MPI 3.1, 6.7.4): keyvals with
 * user, MPI_TYPE_DUP_FN and null callbacks; MPI_Type_dup copies what the
 * copy callbacks say, MPI_Type_free, MPI_Type_delete_attr and replacing a
 * value run the delete callbacks (with the type, keyval and extra state);
 * a freed keyval still deletes what it set; errors a callback returns fail
 * the call (a failed dup gives MPI_DATATYPE_NULL). */
#include "mtest.h"

static int copies, deletes, extra_ok;
static MPI_Datatype last_type;
static int last_keyval;
static int fail_copy, fail_delete;

static int copy_plus(MPI_Datatype t, int key, void *extra, void *in, void *out, int *flag)
{
    copies++;
    last_type = t;
    last_keyval = key;
    extra_ok += extra == &extra_ok;
    if (fail_copy) {
        *flag = 0;
        return MPI_ERR_OTHER;
    }
    /* the copy holds the next value of a small array */
    *(int **)out = (int *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_count(MPI_Datatype t, int key, void *value, void *extra)
{
    (void)value;
    deletes++;
    last_type = t;
    last_keyval = key;
    extra_ok += extra == &extra_ok;
    return fail_delete ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int values[8];

static void basics(void)
{
    int kplus, kdup, knull, flag = -1;
    int *got = NULL;
    MPI_Datatype t, d;
    CHECK_MPI(MPI_Type_create_keyval(copy_plus, delete_count, &kplus, &extra_ok));
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &kdup, NULL));
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_count, &knull, &extra_ok));
    CHECK_MPI(MPI_Type_vector(2, 1, 3, MPI_INT, &t));
    /* nothing set yet */
    CHECK_MPI(MPI_Type_get_attr(t, kplus, &got, &flag));
    CHECK(flag == 0, "an attribute before any was set");
    CHECK_MPI(MPI_Type_set_attr(t, kplus, &values[0]));
    CHECK_MPI(MPI_Type_set_attr(t, kdup, &values[5]));
    CHECK_MPI(MPI_Type_set_attr(t, knull, &values[7]));
    CHECK_MPI(MPI_Type_get_attr(t, kplus, &got, &flag));
    CHECK(flag && got == &values[0], "get after set: flag %d", flag);

    /* replacing a value deletes the old one */
    copies = deletes = extra_ok = 0;
    CHECK_MPI(MPI_Type_set_attr(t, kplus, &values[1]));
    CHECK(deletes == 1 && last_type == t && last_keyval == kplus && extra_ok == 1,
          "replacing: %d deletes (right type %d, keyval %d)", deletes, last_type == t, last_keyval);

    /* dup: kplus copies value + 1, kdup as is, knull not at all */
    copies = deletes = extra_ok = 0;
    CHECK_MPI(MPI_Type_dup(t, &d));
    CHECK(copies == 1 && last_type == t && last_keyval == kplus && extra_ok == 1,
          "dup: %d copies, callback saw the type %d, keyval %d", copies, last_type == t,
          last_keyval);
    CHECK_MPI(MPI_Type_get_attr(d, kplus, &got, &flag));
    CHECK(flag && got == &values[2], "dup: the copied value is %p, expected %p",
          (void *)got, (void *)&values[2]);
    CHECK_MPI(MPI_Type_get_attr(d, kdup, &got, &flag));
    CHECK(flag && got == &values[5], "dup: MPI_TYPE_DUP_FN did not copy the value");
    CHECK_MPI(MPI_Type_get_attr(d, knull, &got, &flag));
    CHECK(!flag, "dup: MPI_TYPE_NULL_COPY_FN copied the attribute");
    /* the original keeps its own */
    CHECK_MPI(MPI_Type_get_attr(t, kplus, &got, &flag));
    CHECK(flag && got == &values[1], "dup changed the original's attribute");

    /* delete_attr runs the callback; the attribute is gone */
    deletes = 0;
    CHECK_MPI(MPI_Type_delete_attr(d, kplus));
    CHECK(deletes == 1 && last_type == d, "delete_attr: %d deletes", deletes);
    CHECK_MPI(MPI_Type_get_attr(d, kplus, &got, &flag));
    CHECK(!flag, "the deleted attribute is still there");

    /* free runs the delete callbacks of what is left: none on d (kdup's is
     * null), kplus and knull on t. (d goes first: Open MPI's duplicate keeps
     * the original alive, and its attributes, until it goes.) */
    deletes = 0;
    CHECK_MPI(MPI_Type_free(&d));
    CHECK(deletes == 0, "free of a dup with no deleting attribute: %d deletes", deletes);
    CHECK_MPI(MPI_Type_free(&t));
    CHECK(deletes == 2, "free of a type with two deleting attributes: %d deletes", deletes);

    /* a freed keyval: invalid for new uses, but its attributes are deleted */
    CHECK_MPI(MPI_Type_contiguous(4, MPI_CHAR, &t));
    CHECK_MPI(MPI_Type_set_attr(t, knull, &values[3]));
    CHECK_MPI(MPI_Type_free_keyval(&knull));
    CHECK(knull == MPI_KEYVAL_INVALID, "free_keyval left %d", knull);
    deletes = 0;
    CHECK_MPI(MPI_Type_free(&t));
    CHECK(deletes == 1, "an attribute of a freed keyval: %d deletes at MPI_Type_free", deletes);

    /* predefined types carry attributes too */
    CHECK_MPI(MPI_Type_set_attr(MPI_DOUBLE, kdup, &values[4]));
    CHECK_MPI(MPI_Type_get_attr(MPI_DOUBLE, kdup, &got, &flag));
    CHECK(flag && got == &values[4], "attribute on MPI_DOUBLE");
    CHECK_MPI(MPI_Type_get_attr(MPI_INT, kdup, &got, &flag));
    CHECK(!flag, "MPI_INT has MPI_DOUBLE's attribute");
    CHECK_MPI(MPI_Type_delete_attr(MPI_DOUBLE, kdup));
    CHECK_MPI(MPI_Type_free_keyval(&kplus));
    CHECK_MPI(MPI_Type_free_keyval(&kdup));
}

static void failures(void)
{
    int k, flag = 0, rc;
    int *got = NULL;
    MPI_Datatype t, d = MPI_INT;
    CHECK_MPI(MPI_Type_create_keyval(copy_plus, delete_count, &k, &extra_ok));
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
    CHECK_MPI(MPI_Type_set_attr(t, k, &values[0]));
    /* a copy callback fails: no duplicate */
    fail_copy = 1;
    rc = MPI_Type_dup(t, &d);
    fail_copy = 0;
    CHECK(rc != MPI_SUCCESS, "MPI_Type_dup succeeded although the copy callback failed");
#ifdef BOLT_MPI /* as a failed MPI_Comm_dup gives MPI_COMM_NULL (Open MPI leaves it) */
    CHECK(d == MPI_DATATYPE_NULL, "a failed MPI_Type_dup did not give MPI_DATATYPE_NULL");
#endif
    if (rc == MPI_SUCCESS)
        MPI_Type_free(&d);
    /* a delete callback fails: the call fails, the attribute stays */
    fail_delete = 1;
    CHECK(MPI_Type_delete_attr(t, k) != MPI_SUCCESS, "delete_attr succeeded despite its callback");
    CHECK(MPI_Type_set_attr(t, k, &values[1]) != MPI_SUCCESS,
          "set_attr succeeded although deleting the value it replaces failed");
    CHECK_MPI(MPI_Type_get_attr(t, k, &got, &flag));
    CHECK(flag && got == &values[0], "the attribute changed after failed deletes");
#ifdef BOLT_MPI /* Open MPI runs delete callbacks when the type's memory goes, later */
    CHECK(MPI_Type_free(&t) != MPI_SUCCESS, "MPI_Type_free succeeded despite its callback");
#endif
    fail_delete = 0;
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Type_free_keyval(&k));
}

static void wrong_keyvals(void)
{
    int ck, tk, flag;
    void *v;
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ck, NULL));
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &tk, NULL));
    CHECK(MPI_Type_set_attr(MPI_INT, ck, NULL) != MPI_SUCCESS,
          "a communicator keyval set on a datatype");
    CHECK(MPI_Comm_set_attr(MPI_COMM_WORLD, tk, NULL) != MPI_SUCCESS,
          "a datatype keyval set on a communicator");
#ifdef BOLT_MPI
    int cls = -1;
    MPI_Error_class(MPI_Type_get_attr(MPI_INT, ck, &v, &flag), &cls);
    CHECK(cls == MPI_ERR_KEYVAL, "a communicator keyval read on a datatype: class %d", cls);
    MPI_Error_class(MPI_Type_free_keyval(&ck), &cls);
    CHECK(cls == MPI_ERR_KEYVAL, "MPI_Type_free_keyval of a communicator keyval: class %d", cls);
#else
    (void)v, (void)flag;
#endif
    CHECK_MPI(MPI_Comm_free_keyval(&ck));
    CHECK_MPI(MPI_Type_free_keyval(&tk));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_type_attr");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    basics();
    failures();
    wrong_keyvals();
    return mt_finish();
}
