# tests/collectives/: collective operations against a serial reference.
