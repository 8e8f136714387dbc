# transport/rdma/: the RDMA transport over ibverbs (rdma-core on Linux,
# Apple's librdma on macOS); built when configure finds a verbs library.
# The credit/sequence arithmetic needs no verbs and is unit-tested anywhere.
libbolt_la_SOURCES += transport/rdma/rdma_flow.c transport/rdma/rdma_flow.h \
	transport/rdma/rdma_devmap.c transport/rdma/rdma_devmap.h
if HAVE_VERBS
libbolt_la_SOURCES += \
	transport/rdma/rdma.h \
	transport/rdma/rdma_dev.c \
	transport/rdma/rdma_qp.c \
	transport/rdma/rdma_xfer.c \
	transport/rdma/rdma_ctx.c
libbolt_la_LIBADD += $(VERBS_LIBS)
endif
EXTRA_DIST += transport/rdma/rdma.h transport/rdma/rdma_dev.c transport/rdma/rdma_qp.c \
	transport/rdma/rdma_xfer.c transport/rdma/rdma_ctx.c
