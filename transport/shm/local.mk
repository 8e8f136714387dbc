# transport/shm/: the shared-memory transport (bolt_transport_shm) for ranks
# on one host; boltrun creates the segment (launcher/shm_host.c, which also
# builds shm_seg.c).
libbolt_la_SOURCES += \
	transport/shm/shm.h \
	transport/shm/shm_seg.c transport/shm/shm_seg.h \
	transport/shm/shm_ring.c transport/shm/shm_ring.h \
	transport/shm/shm_xfer.c \
	transport/shm/shm_claim.c \
	transport/shm/shm_mcast.c \
	transport/shm/shm_bell.c \
	transport/shm/shm_ctx.c \
	transport/shm/shm_cma.h transport/shm/shm_fence.h transport/shm/shm_prefault.h
# Platform seams: process_vm_readv on Linux, elsewhere large messages are
# copied through shared memory; membarrier on Linux, elsewhere full fences on
# both sides of the doorbell; madvise(MADV_POPULATE_WRITE) on Linux,
# elsewhere one read per page to fault channels in. (tests/transport builds
# the POSIX files on Linux too.)
if BOLT_OS_LINUX
libbolt_la_SOURCES += transport/shm/shm_cma_linux.c transport/shm/shm_fence_linux.c \
	transport/shm/shm_prefault_linux.c
else
libbolt_la_SOURCES += transport/shm/shm_cma_posix.c transport/shm/shm_fence_posix.c \
	transport/shm/shm_prefault_posix.c
endif
EXTRA_DIST += transport/shm/shm_cma_linux.c transport/shm/shm_cma_posix.c \
	transport/shm/shm_fence_linux.c transport/shm/shm_fence_posix.c \
	transport/shm/shm_prefault_linux.c transport/shm/shm_prefault_posix.c
