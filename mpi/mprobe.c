/* mprobe.c — matched probes: MPI_Mprobe / MPI_Improbe take the message they
 * find out of matching (bolt_mprobe), and MPI_Mrecv / MPI_Imrecv receive
 * exactly that message. MPI_Message handles index a table of native
 * messages; MPI_MESSAGE_NO_PROC stands for a probe of MPI_PROC_NULL. */
#include <stdlib.h>
#include <string.h>

#include "mpi/face.h"

struct face_msg {
    bolt_message_t native;
    MPI_Comm comm;
    int peer_base; /* the communicator's (it may be freed before the receive) */
};

static struct face_msg *msgs; /* [0] is MPI_MESSAGE_NULL; native NULL = free slot */
static int nmsgs, cap_msgs;

void face_messages_finalize(void)
{
    free(msgs); /* messages never received are the program's to answer for */
    msgs = NULL;
    nmsgs = cap_msgs = 0;
}

int face_message_live(MPI_Message m)
{
    return m == MPI_MESSAGE_NO_PROC || (m > 0 && m < nmsgs && msgs[m].native);
}

static int msg_add(bolt_message_t m, MPI_Comm comm, int base, MPI_Message *out)
{
    int slot = -1;
    for (int i = 1; i < nmsgs && slot < 0; i++)
        if (!msgs[i].native)
            slot = i;
    if (slot < 0) {
        if (nmsgs == 0)
            nmsgs = 1;
        if (nmsgs >= cap_msgs) {
            int c = cap_msgs ? cap_msgs * 2 : 16;
            struct face_msg *t = realloc(msgs, (size_t)c * sizeof *t);
            if (!t)
                return MPI_ERR_NO_MEM;
            memset(t + cap_msgs, 0, (size_t)(c - cap_msgs) * sizeof *t);
            msgs = t;
            cap_msgs = c;
        }
        slot = nmsgs++;
    }
    msgs[slot] = (struct face_msg){m, comm, base};
    *out = slot;
    return MPI_SUCCESS;
}

static int probe(int source, int tag, MPI_Comm comm, int blocking, int *flag,
                 MPI_Message *message, MPI_Status *status, const char *fn)
{
    struct face_comm *c = NULL;
    int rc = face_comm_check(comm, fn, &c);
    if (rc || (rc = face_check_rank(comm, c, source, 1, fn)) ||
        (rc = face_check_tag(comm, tag, 1, fn)))
        return rc;
    if (!message || (!blocking && !flag))
        return face_error(comm, fn, MPI_ERR_ARG, "message or flag pointer is NULL");
    if (source == MPI_PROC_NULL) {
        *message = MPI_MESSAGE_NO_PROC;
        if (flag)
            *flag = 1;
        face_status_proc_null(status);
        return MPI_SUCCESS;
    }
    bolt_message_t m = BOLT_MESSAGE_NULL;
    bolt_status_t ns;
    int found = 1;
    int np = face_native_peer(c, source);
    rc = blocking ? bolt_mprobe(np, tag, c->native, &m, &ns)
                  : bolt_improbe(np, tag, c->native, &found, &m, &ns);
    if (rc)
        return face_native_error(comm, fn, rc);
    if (flag)
        *flag = found;
    if (!found) {
        *message = MPI_MESSAGE_NULL;
        return MPI_SUCCESS;
    }
    if (msg_add(m, comm, c->peer_base, message)) {
        /* Receive it into nothing would lose it; keep it reserved and say so. */
        return face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory for a message handle");
    }
    face_status_set(status, &ns, c->peer_base);
    return MPI_SUCCESS;
}

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    return probe(source, tag, comm, 1, NULL, message, status, "MPI_Mprobe");
}

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    return probe(source, tag, comm, 0, flag, message, status, "MPI_Improbe");
}

/* Starts receiving message *message into q (a receive request) and clears the handle. */
static int mrecv_start(void *buf, int count, MPI_Datatype dt, MPI_Message *message,
                       struct face_req *q, const char *fn)
{
    int rc = face_check_init(fn);
    if (rc)
        return rc;
    if (!message)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "message pointer is NULL");
    MPI_Message h = *message;
    if (h == MPI_MESSAGE_NO_PROC) {
        q->proc_null = 1;
        *message = MPI_MESSAGE_NULL;
        return MPI_SUCCESS;
    }
    if (h <= 0 || h >= nmsgs || !msgs[h].native)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_REQUEST,
                          h == MPI_MESSAGE_NULL
                              ? "the message is MPI_MESSAGE_NULL: pass what MPI_Mprobe or "
                                "MPI_Improbe (with flag true) returned"
                              : "message handle %d is not a pending message (received already?)",
                          h);
    MPI_Comm comm = msgs[h].comm;
    struct face_type *t = NULL;
    if ((rc = face_type_check(comm, dt, fn, &t)))
        return rc;
    if (count < 0)
        return face_error(comm, fn, MPI_ERR_COUNT, "count %d is negative", count);
    if (!buf && count > 0 && t->size > 0 && t->contig && t->true_lb == 0)
        return face_error(comm, fn, MPI_ERR_BUFFER, "buffer is NULL but count is %d", count);
    size_t bytes = (size_t)count * t->size;
    void *dst;
    if (face_type_contig_span(t, (size_t)count) || bytes == 0) {
        dst = (char *)buf + t->true_lb;
    } else {
        if (!(q->tmp = malloc(bytes)))
            return face_error(comm, fn, MPI_ERR_NO_MEM, "cannot allocate %zu bytes to unpack into",
                              bytes);
        dst = q->tmp;
    }
    q->comm = comm;
    q->kind = FACE_REQ_RECV;
    q->user_buf = buf;
    q->pbuf = buf;
    q->count = count;
    q->dt = dt;
    q->pmode = 4; /* a receive */
    q->peer = MPI_ANY_SOURCE;
    q->peer_base = msgs[h].peer_base;
    if ((rc = bolt_imrecv(dst, bytes, &msgs[h].native, &q->native))) {
        free(q->tmp);
        q->tmp = NULL;
        return face_native_error(comm, fn, rc);
    }
    msgs[h].native = BOLT_MESSAGE_NULL;
    *message = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Status *status)
{
    struct face_req q = {0};
    int rc = mrecv_start(buf, count, dt, message, &q, "MPI_Mrecv");
    if (rc)
        return rc;
    bolt_status_t ns = {0};
    int nrc = q.proc_null ? BOLT_OK : bolt_wait(&q.native, &ns);
    return face_req_complete(&q, &ns, nrc, status, "MPI_Mrecv");
}

int PMPI_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message,
                MPI_Request *request)
{
    struct face_req *q = NULL;
    MPI_Request h;
    if (!request)
        return face_error(MPI_COMM_NULL, "MPI_Imrecv", MPI_ERR_REQUEST, "request pointer is NULL");
    int rc = face_check_init("MPI_Imrecv");
    if (rc)
        return rc;
    if (face_req_new(&q, &h))
        return face_error(MPI_COMM_NULL, "MPI_Imrecv", MPI_ERR_NO_MEM, "out of memory for a request");
    q->active = 1;
    if ((rc = mrecv_start(buf, count, dt, message, q, "MPI_Imrecv"))) {
        face_req_release(h);
        return rc;
    }
    if (q->tmp) { /* unpacked at completion: MPI_Type_free before then must not take it */
        face_type_hold(q->dt);
        q->dt_held = 1;
    }
    *request = h;
    return MPI_SUCCESS;
}
