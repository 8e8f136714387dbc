# collectives/: collective algorithms over the runtime point-to-point interface.
