/* unsupported.c — what Bolt's MPI face does not do: dynamic processes
 * (MPI-IO: file.c).
 * Each function exists with its standard signature (codes link) and raises
 * MPI_ERR_UNSUPPORTED_OPERATION through the error handler, so with
 * MPI_ERRORS_ARE_FATAL the job ends with a message naming the call instead
 * of misbehaving later. Output handles are
 * set to their NULL value first. The list is in README.md, "MPI support". */
#include "mpi/face.h"

static const char *const DYNAMIC = "dynamic process management";
static const char *const PORTS = "connecting jobs through ports and names";
static const char *const FILE_IO = "MPI-IO (parallel file access)";

static int unsupported(MPI_Comm comm, const char *fn, const char *what)
{
    int rc = face_check_init(fn);
    if (rc)
        return rc;
    return face_error(face_comm_get(comm) ? comm : MPI_COMM_NULL, fn,
                      MPI_ERR_UNSUPPORTED_OPERATION,
                      "%s is not supported by Bolt (see README: MPI support)", what);
}

int face_unsupported(MPI_Comm comm, const char *fn, const char *what)
{
    return unsupported(comm, fn, what);
}

#define SET(p, v) \
    do {          \
        if (p)    \
            *(p) = (v); \
    } while (0)

/* ---- dynamic processes ---------------------------------------------------------------- */
int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                    MPI_Comm comm, MPI_Comm *intercomm, int errcodes[])
{
    (void)command, (void)argv, (void)maxprocs, (void)info, (void)root, (void)errcodes;
    SET(intercomm, MPI_COMM_NULL);
    return unsupported(comm, "MPI_Comm_spawn", DYNAMIC);
}

int PMPI_Comm_spawn_multiple(int count, char *commands[], char **argvs[], const int maxprocs[],
                             const MPI_Info infos[], int root, MPI_Comm comm, MPI_Comm *intercomm,
                             int errcodes[])
{
    (void)count, (void)commands, (void)argvs, (void)maxprocs, (void)infos, (void)root,
        (void)errcodes;
    SET(intercomm, MPI_COMM_NULL);
    return unsupported(comm, "MPI_Comm_spawn_multiple", DYNAMIC);
}

/* No process of a Bolt job was spawned, so there is no parent: a valid answer. */
int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    int rc = face_check_init("MPI_Comm_get_parent");
    if (rc)
        return rc;
    if (!parent)
        return face_error(MPI_COMM_NULL, "MPI_Comm_get_parent", MPI_ERR_ARG, "parent pointer is NULL");
    *parent = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int PMPI_Open_port(MPI_Info info, char *port_name)
{
    (void)info, (void)port_name;
    return unsupported(MPI_COMM_NULL, "MPI_Open_port", PORTS);
}

int PMPI_Close_port(const char *port_name)
{
    (void)port_name;
    return unsupported(MPI_COMM_NULL, "MPI_Close_port", PORTS);
}

int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm)
{
    (void)port_name, (void)info, (void)root;
    SET(newcomm, MPI_COMM_NULL);
    return unsupported(comm, "MPI_Comm_accept", PORTS);
}

int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                      MPI_Comm *newcomm)
{
    (void)port_name, (void)info, (void)root;
    SET(newcomm, MPI_COMM_NULL);
    return unsupported(comm, "MPI_Comm_connect", PORTS);
}

int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    return unsupported(comm ? *comm : MPI_COMM_NULL, "MPI_Comm_disconnect", PORTS);
}

int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    (void)fd;
    SET(intercomm, MPI_COMM_NULL);
    return unsupported(MPI_COMM_NULL, "MPI_Comm_join", PORTS);
}

int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    (void)service_name, (void)info, (void)port_name;
    return unsupported(MPI_COMM_NULL, "MPI_Publish_name", PORTS);
}

int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    (void)service_name, (void)info, (void)port_name;
    return unsupported(MPI_COMM_NULL, "MPI_Unpublish_name", PORTS);
}

int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    (void)service_name, (void)info, (void)port_name;
    return unsupported(MPI_COMM_NULL, "MPI_Lookup_name", PORTS);
}

/* Data representations serve MPI-IO's file views only (MPI_Pack_external
 * knows "external32" by itself). */
int PMPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_fn,
                          MPI_Datarep_conversion_function *write_fn,
                          MPI_Datarep_extent_function *extent_fn, void *extra_state)
{
    (void)datarep, (void)read_fn, (void)write_fn, (void)extent_fn, (void)extra_state;
    return unsupported(MPI_COMM_NULL, "MPI_Register_datarep", FILE_IO);
}
