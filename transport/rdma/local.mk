# transport/rdma/: the RDMA transport over ibverbs (rdma-core on Linux,
# Apple's librdma on macOS); built when configure finds a verbs library.
