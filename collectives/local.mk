# collectives/: collective algorithms over the runtime point-to-point interface.
libbolt_la_SOURCES += \
	collectives/coll.h \
	collectives/datatype.c collectives/op.c collectives/reduce_kernels.c \
	collectives/sched.c collectives/scratch.c collectives/nbc.c collectives/select.c collectives/linkplan.c \
	collectives/api_common.c collectives/api_reduce.c collectives/api_data.c \
	collectives/allreduce_rd.c collectives/allreduce_ring.c \
	collectives/allreduce_rabenseifner.c collectives/allreduce_oneshot.c \
	collectives/allreduce_mesh.c collectives/reduce_scatter_direct.c \
	collectives/tree_binomial.c collectives/bcast_binomial.c collectives/bcast_chain.c \
	collectives/bcast_scatter_allgather.c collectives/bcast_flat.c \
	collectives/barrier_dissemination.c \
	collectives/barrier_linear.c \
	collectives/allgather_ring.c collectives/allgather_rd.c collectives/allgather_bruck.c \
	collectives/allgather_direct.c \
	collectives/alltoall_pairwise.c collectives/gather.c collectives/scatter.c \
	collectives/reduce_binomial.c collectives/scan.c
