/* mpi_panel_bcast.c — HPL's "1-ring" panel broadcast: for each panel the
 * owner (panels go round-robin) sends to the next rank; every other rank
 * polls with MPI_Iprobe while it updates its trailing matrix, receives the
 * panel when it is there and passes it on to the next rank unless that is
 * the owner. Panels grow from a few KiB to past the eager size, and a rank
 * may be forwarding one panel while the next is already on its way. */
#include "mtest.h"

#define NPANELS 10

static int panel_len(int j) { return 300 + j * j * 700; } /* doubles: up to ~450 KiB */

static double panel_value(int j, int i) { return j * 1e6 + i * 0.5; }

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_panel_bcast");
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    double *panel = malloc(sizeof(double) * panel_len(NPANELS - 1));
    double *fwd = malloc(sizeof(double) * panel_len(NPANELS - 1));
    double update = 0;
    long polls = 0;
    MPI_Request fwd_req = MPI_REQUEST_NULL;
    for (int j = 0; j < NPANELS; j++) {
        int owner = j % mt_size, n = panel_len(j);
        if (mt_rank == owner) {
            for (int i = 0; i < n; i++)
                panel[i] = panel_value(j, i);
            if (mt_size > 1)
                MPI_Send(panel, n, MPI_DOUBLE, next, j, MPI_COMM_WORLD);
        } else {
            int flag = 0, count = -1;
            MPI_Status st;
            while (!flag) {
                MPI_Iprobe(prev, j, MPI_COMM_WORLD, &flag, &st);
                if (!flag)
                    update += 1e-9 * (double)(polls++ % 101); /* the trailing update */
            }
            MPI_Get_count(&st, MPI_DOUBLE, &count);
            CHECK(count == n, "panel %d: probe says %d doubles, want %d", j, count, n);
            MPI_Recv(panel, n, MPI_DOUBLE, prev, j, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            /* Forward from a copy so the panel can be used while it travels on. */
            MPI_Wait(&fwd_req, MPI_STATUS_IGNORE);
            if (next != owner) {
                memcpy(fwd, panel, sizeof(double) * n);
                MPI_Isend(fwd, n, MPI_DOUBLE, next, j, MPI_COMM_WORLD, &fwd_req);
            }
        }
        int bad = 0;
        for (int i = 0; i < n; i++)
            bad += panel[i] != panel_value(j, i);
        CHECK(bad == 0, "panel %d from rank %d: %d of %d values wrong", j, owner, bad, n);
    }
    MPI_Wait(&fwd_req, MPI_STATUS_IGNORE);
    (void)update;
    free(panel);
    free(fwd);
    return mt_finish();
}
