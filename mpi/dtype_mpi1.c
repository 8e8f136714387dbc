/* dtype_mpi1.c — MPI-1's datatype calls that MPI 3.0 removed, for the older
 * codes that still call them: each is its MPI-2 replacement (MPI_Type_hvector
 * is MPI_Type_create_hvector, and so on; in C the types they make decode
 * with the same combiners). MPI_LB and MPI_UB markers are not provided:
 * MPI_Type_lb and MPI_Type_ub give the bounds MPI_Type_get_extent does. */
#include "mpi/face.h"

int PMPI_Address(void *location, MPI_Aint *address)
{
    return PMPI_Get_address(location, address);
}

static int bounds(MPI_Datatype dt, const char *fn, MPI_Aint *lb, MPI_Aint *ub)
{
    int rc = face_check_init(fn);
    if (rc)
        return rc;
    const struct face_type *t = face_type_get(dt);
    if (!t)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_TYPE,
                          dt == MPI_DATATYPE_NULL ? "the datatype is MPI_DATATYPE_NULL"
                                                  : "datatype handle %d is not a live datatype",
                          dt);
    *lb = t->lb;
    *ub = t->ub;
    return MPI_SUCCESS;
}

int PMPI_Type_extent(MPI_Datatype dt, MPI_Aint *extent)
{
    MPI_Aint lb, ub;
    int rc = bounds(dt, "MPI_Type_extent", &lb, &ub);
    if (rc)
        return rc;
    if (!extent)
        return face_error(MPI_COMM_NULL, "MPI_Type_extent", MPI_ERR_ARG, "extent pointer is NULL");
    *extent = ub - lb;
    return MPI_SUCCESS;
}

int PMPI_Type_lb(MPI_Datatype dt, MPI_Aint *displacement)
{
    MPI_Aint lb, ub;
    int rc = bounds(dt, "MPI_Type_lb", &lb, &ub);
    if (rc)
        return rc;
    if (!displacement)
        return face_error(MPI_COMM_NULL, "MPI_Type_lb", MPI_ERR_ARG, "displacement pointer is NULL");
    *displacement = lb;
    return MPI_SUCCESS;
}

int PMPI_Type_ub(MPI_Datatype dt, MPI_Aint *displacement)
{
    MPI_Aint lb, ub;
    int rc = bounds(dt, "MPI_Type_ub", &lb, &ub);
    if (rc)
        return rc;
    if (!displacement)
        return face_error(MPI_COMM_NULL, "MPI_Type_ub", MPI_ERR_ARG, "displacement pointer is NULL");
    *displacement = ub;
    return MPI_SUCCESS;
}

int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    return PMPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}

int PMPI_Type_hindexed(int count, int blocklengths[], MPI_Aint displacements[],
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return PMPI_Type_create_hindexed(count, blocklengths, displacements, oldtype, newtype);
}

int PMPI_Type_struct(int count, int blocklengths[], MPI_Aint displacements[],
                     MPI_Datatype types[], MPI_Datatype *newtype)
{
    return PMPI_Type_create_struct(count, blocklengths, displacements, types, newtype);
}
