# tests/rdma/: the rdma transport tested for real inside a VM with a
# Soft-RoCE device (`make check-rdma`).
