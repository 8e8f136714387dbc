# transport/shm/: the shared-memory transport (same-host peers).
